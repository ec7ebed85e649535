from navigator.cli import main

raise SystemExit(main())
