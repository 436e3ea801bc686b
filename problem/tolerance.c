/*
 * tolerance.c - default tolerances per dtype (declared in problem.h).
 *
 * The table of torch.testing.assert_close: a problem that gives no
 * tolerance for a float output gets these, integers are compared exactly.
 */
#include "problem.h"

#include "common/banned.h"

void dtype_default_tolerance(enum dtype t, double *atol, double *rtol)
{
    switch (t) {
    case DTYPE_FP64:
        *atol = 1e-7;
        *rtol = 1e-7;
        return;
    case DTYPE_FP32:
        *atol = 1e-5;
        *rtol = 1.3e-6;
        return;
    case DTYPE_FP16:
        *atol = 1e-5;
        *rtol = 1e-3;
        return;
    case DTYPE_BF16:
        *atol = 1e-5;
        *rtol = 1.6e-2;
        return;
    case DTYPE_INVALID:
    case DTYPE_INT8:
    case DTYPE_UINT8:
    case DTYPE_INT32:
    case DTYPE_UINT32:
    case DTYPE_INT64:
    case DTYPE_UINT64:
        break;
    }
    *atol = 0;
    *rtol = 0;
}
