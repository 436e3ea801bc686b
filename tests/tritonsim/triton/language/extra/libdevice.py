"""triton.language.extra.libdevice (stand-in)."""
from tsim.libdevice import *  # noqa: F401,F403
from tsim.libdevice import __getattr__  # noqa: F401
