"""The FuseFlow binding: a tensor program's schedule space for the navigator.

    facts              the fact program generated from the compiler's analysis and rules
    bundled_library    the FuseFlow scheduling library that ships with Navigator
    library_interface  the shape a library's schedules must have to be read (checked once)
    sketch_reading     reads that shape from a complete or partial sketch
    schedule_space     the space (navigator.navigation.space.Space): library, facts and oracle; sketch <-> schedule
    sketch_hints       the best estimated cost beneath each menu option
    option_details     what an option means in the program: a region's ops, an order's loop nest
    rebuild_script     `export --python`: a script that rebuilds a schedule with fuseflow's API
    summary            what `navigator check` reports about a program

    space = ScheduleSpace.build(program, bind(program))
    space.schedule_of(space.oracle.initial_sketch())      # UserError: the sketch still has open holes
"""
