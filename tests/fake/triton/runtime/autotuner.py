"""triton.autotune and triton.heuristics, faked after Triton 3.6's runtime/autotuner.py:
the constructors' signatures and the attributes the judge's launcher recorder reads
(configs, keys, arg_names, reset_to_zero, restore_value, user_defined_pre_hook,
user_defined_post_hook, perf_model, early_config_prune; Config's kwargs, num_warps,
num_stages, num_ctas, maxnreg, pre_hook, ir_override; Heuristics' values). Running
one needs a GPU: run() is KernelInterface's, which refuses."""
from .jit import KernelInterface


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        self.configs = configs if configs else [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        self.keys = key
        self.cache = {}
        self.arg_names = arg_names
        self.reset_to_zero = list(reset_to_zero) if reset_to_zero is not None else []
        self.restore_value = list(restore_value) if restore_value is not None else []
        self.pre_hook = lambda kwargs, reset_only=False: 0
        self.post_hook = lambda kwargs, exception: 0
        self.user_defined_pre_hook = False
        self.user_defined_post_hook = False
        if pre_hook:
            self.pre_hook = pre_hook
            self.user_defined_pre_hook = True
        if post_hook:
            self.post_hook = post_hook
            self.user_defined_post_hook = True
        self.perf_model = None
        self.configs_top_k = 1.0
        self.early_config_prune = None
        if prune_configs_by:
            self.perf_model = prune_configs_by.get("perf_model", self.perf_model)
            self.configs_top_k = prune_configs_by.get("top_k", self.configs_top_k)
            self.early_config_prune = prune_configs_by.get("early_config_prune", self.early_config_prune)
        self.fn = fn
        self.base_fn = fn
        while not hasattr(self.base_fn, "__code__") and hasattr(self.base_fn, "fn"):
            self.base_fn = self.base_fn.fn
        self.num_warmups, self.num_reps, self.use_cuda_graph = warmup, rep, use_cuda_graph
        self.cache_results = cache_results


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self):
        return {**self.kwargs, **{k: v for (k, v) in (("num_warps", self.num_warps),
                                                       ("num_ctas", self.num_ctas),
                                                       ("num_stages", self.num_stages),
                                                       ("maxnreg", self.maxnreg),
                                                       ("ir_override", self.ir_override))
                                  if v is not None}}

    def __str__(self):
        res = ["%s: %s" % (k, v) for k, v in self.kwargs.items()]
        res += ["num_warps: %s" % self.num_warps, "num_ctas: %s" % self.num_ctas,
                "num_stages: %s" % self.num_stages, "maxnreg: %s" % self.maxnreg]
        return ", ".join(res)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                         warmup=warmup, rep=rep, use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names


def heuristics(values):
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
