"""The dataflow simulator: functional check and cycle model (docs/simulator.md).

Entry points: `simulator.evaluate.evaluate` (a whole schedule, either executor),
`navigator.evaluation.baselines.compare_baselines` (what `navigator compare` prints).
"""
