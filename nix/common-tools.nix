# commonTools: the standard CLI tools most agents expect on PATH.
pkgs:
with pkgs;
[
  bashInteractive
  coreutils
  findutils
  diffutils
  gnugrep
  gnused
  gawk
  gnutar
  gzip
  xz
  unzip
  which
  file
  less
  patch
  procps
  tree
  git
  ripgrep
  fd
  jq
  curl
  cacert
]
