"""What the user does to a session, written once: the CLI's commands and the TUI's keys both call these.

    from navigator.actions.fill import fill_hole
    from navigator.actions.export import ExportRequest, export_session
    from navigator.actions.evaluate_sketch import evaluate_sketch

    with locked_workspace(path) as workspace:
        fill_hole(workspace, 3, strategy=get_strategy("heuristic"))       # one undo unit, saved
    export_session(open_workspace(path), ExportRequest({"json": "s.json"}, partial=True))
    evaluate_sketch(open_workspace(path)).cycles

fill             a hole by hand or by a strategy; the one place a strategy's view of a workspace is made
export           the files a complete sketch becomes (the space decides which), their paths checked
evaluate_sketch  a sketch simulated with its open holes at their defaults, against the unfused defaults
"""
