/*
 * python.h - finding the Python that judged runs: Triton's compiler (its
 * compile children) and the problems' PyTorch baselines use the same one.
 */
#ifndef BW_PYTHON_H
#define BW_PYTHON_H

/* The environment variable naming the Python to use (a venv's bin/python3, say). */
#define BW_PYTHON_ENV "BLOCKWISE_PYTHON"

/*
 * The Python to run (*new* absolute path in *out): `python` as given, else
 * $BLOCKWISE_PYTHON, else python3 on PATH. A path is made absolute but not
 * resolved (a venv's bin/python3 is a link that must stay one). BW_ERR_NOTFOUND
 * with a cause that names what the Python is for (`needs`: "Triton", "PyTorch").
 */
int python_find(const char *python, const char *needs, char **out, char **cause);

#endif
