# Protocol tests run everywhere; the ones that look at the program from outside (kill,
# /proc) need a Unix. The package's file list is checked where the package is laid out
# (scripts/elixir-package), and reported as excluded in the repository.
exclude = if match?({:unix, _}, :os.type()), do: [], else: [:unix]
exclude = if File.dir?("native"), do: exclude, else: [:package | exclude]
ExUnit.start(exclude: exclude)
