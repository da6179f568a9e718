[inputs: ["{mix,.formatter}.exs", "mix/*.exs", "{lib,test,bench}/**/*.{ex,exs}"]]
