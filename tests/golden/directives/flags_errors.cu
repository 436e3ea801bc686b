// @launch k grid=(1) block=(1) args=(x)
// @flags -I/etc
// @flags -DBLOCK=256
// @flags --include-path=/ -include /etc/passwd
// @flags --pre-include=x.h
// @flags -arch=sm_80 --gpu-architecture=compute_90
// @flags -G --device-debug -rdc=true --dopt=on -Xptxas -v
// @flags --maxrregcount=0 --maxrregcount=256 -maxrregcount=x --maxrregcount 32
// @flags --ftz=yes --prec-div --std=c++98
// @flags
