"""errors.py - how a simulated Triton program fails, mapped to the judge's verdicts.

CompileError: what Triton's compiler would refuse before anything runs (a type
or shape error, a non-constexpr where one is needed, an operation outside the
modelled subset); the judge reports it as Compile Error. Fault: what the GPU
would stop with at run time (an access far outside every buffer, a misaligned
access): Runtime Error. TimeLimit: a launch that does not end (an endless loop,
a range with step 0): Time Limit. A write into a guard band is not an
exception: it lands in the band, and the plan runner reports Memory Violation
after the launch, as the judge does.
"""


class SimError(Exception):
    verdict = "Judge Error"


class CompileError(SimError):
    verdict = "Compile Error"


class Fault(SimError):
    verdict = "Runtime Error"


class TimeLimit(SimError):
    verdict = "Time Limit"
