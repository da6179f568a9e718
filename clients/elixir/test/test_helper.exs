# Protocol tests run everywhere; the ones that look at the program from outside (kill,
# /proc) need a Unix.
exclude = if match?({:unix, _}, :os.type()), do: [], else: [:unix]
ExUnit.start(exclude: exclude)
