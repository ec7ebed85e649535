from navigator import main

raise SystemExit(main())
