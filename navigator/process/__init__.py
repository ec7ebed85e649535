"""The `navigator` process's own concerns, below everything that runs in it.

console     the lines commands write on stderr (progress, notes, one-line errors)
interrupts  whether the user pressed Ctrl-C (a KeyboardInterrupt is not always what arrives)
crash       the last resort: a bug report file and one line instead of a traceback
"""
