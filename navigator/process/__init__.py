"""The `navigator` process's own concerns, below everything that runs in it.

console     the lines commands write on stderr (progress, notes, one-line errors)
interrupts  whether the user pressed Ctrl-C (a KeyboardInterrupt is not always what arrives)
crash       the last resort: a bug report file and one line instead of a traceback
secrets     the process's secrets (the model's key), hidden in every form from every text it writes
foreign_text  text from a model or a server made safe to store and show (clean_text)
served      the client of a session's server (navigator.server): a command run there, on this terminal
"""
