/*
 * built_tool.h - where a unit test finds a tool the build made (the sandboxed
 * compilers), shared by test_compile.c and test_triton_compile.c.
 */
#ifndef BW_TESTS_BUILT_TOOL_H
#define BW_TESTS_BUILT_TOOL_H

#include <stddef.h>

/*
 * $env when set (taken as given); else `name` in ../bin beside this test
 * binary's directory, else build/bin/`name`, either only when executable,
 * resolved to an absolute path. Into path (size bytes); NULL when none.
 */
const char *built_tool(const char *env, const char *name, char *path, size_t size);

#endif
