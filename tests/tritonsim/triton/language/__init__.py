"""triton.language (stand-in): the tl namespace of the CPU simulator (tsim/lang.py)."""
from tsim.lang import *  # noqa: F401,F403
from tsim.lang import (PropagateNan, abs, cast_ as cast, max, min, range, sum,  # noqa: F401
                       BlockPointer, TensorDescriptor)
from tsim.random import (philox, rand, rand4x, randint, randint4x, randn, randn4x,  # noqa: F401
                         pair_uniform_to_normal, uint_to_uniform_float)

from . import math  # noqa: F401,E402
from . import extra  # noqa: F401,E402

