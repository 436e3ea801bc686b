"""triton.autotune and triton.heuristics, faked: wrappers that keep .fn."""


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, **_):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages


class Autotuner:
    def __init__(self, fn, configs, key):
        self.fn, self.configs, self.key = fn, configs, key


class Heuristics:
    def __init__(self, fn, values):
        self.fn, self.values = fn, values


def autotune(configs, key, **_):
    return lambda fn: Autotuner(fn, configs, key)


def heuristics(values):
    return lambda fn: Heuristics(fn, values)
