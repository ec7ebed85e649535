"""Where the navigator runs the simulator (an import contract keeps it so), and what it compares against.

    from navigator.evaluation.runs import simulate_schedule
    report = simulate_schedule(program, binding, schedule, hardware, where="s.json")

tasks        one candidate's evaluation on a worker (batch runs, strategies' confirmations, the TUI's sketch)
runs         `navigator eval` (one schedule, checked first) and `navigator compare` (the baselines)
baselines    the unfused, per-layer and largest-fusion schedules, tuned
report_text  simulation reports and comparisons for people
result_keys  the hashes results are filed under
"""
