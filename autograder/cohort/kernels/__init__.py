"""Grading kernels: how each notebook's kernel is confined, started (warm or cold) and talked to.

``confinement`` (what confines a kernel, as data: writable places, staged files, limits, uid,
environment), ``bwrap`` (the confinement as bubblewrap's command line: a cold kernel's and the warm
template's sandbox), ``forkserver`` (the warm template's own process; each child confines itself from
the same data), ``template`` (the owner's side of a template: starting it, forking kernels),
``managers`` (the kernel managers nbgrader runs: sandboxed, warm), ``client`` (the prompt kernel
client every manager hands out), ``box`` (a notebook's box on the host), ``preflight`` (where the
grading kernel imports the course package from) and ``processes`` (``/proc`` readings).
"""
