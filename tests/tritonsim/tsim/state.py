"""state.py - what the program being simulated can see: its program id, the grid, the memory."""
pid = (0, 0, 0)
grid = (1, 1, 1)
memory = None
depth = 0  # > 0 while a kernel runs (calling a @triton.jit function is allowed only then)
prints = 0  # device_print lines so far in this launch (capped)
