/* SPDX-License-Identifier: MIT */
/* What a Python program needs visible to run as it does on the host.
 * A virtual environment (PEP 405: ROOT/pyvenv.cfg, its programs in
 * ROOT/bin) is found by the interpreter from the path it was started by,
 * not from where that path's symlinks lead, and its packages live beside
 * it; an interpreter installed outside the system directories (pyenv, uv,
 * conda: PREFIX/bin/pythonX.Y) reads its standard library from
 * PREFIX/lib/pythonX.Y. */
#ifndef ASB_CORE_PYTHON_ENV_H
#define ASB_CORE_PYTHON_ENV_H

/* The virtual environment `path` (a program as found, its symlinks not
 * followed) lies in: ROOT for ROOT/bin/NAME where ROOT/pyvenv.cfg is a
 * regular file. *root is NULL where there is none. 0 or -ENOMEM. */
int python_venv_root(const char *path, char **root);
/* The prefix of a resolved interpreter: PREFIX for PREFIX/bin/pythonX[.Y]
 * where PREFIX/lib/pythonX[.Y] is a directory. *prefix is NULL where it is
 * not one. 0 or -ENOMEM. */
int python_prefix(const char *resolved, char **prefix);

#endif
