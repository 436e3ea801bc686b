# @launch k grid=(1) args=(out)
import triton
