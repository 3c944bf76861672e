from adaptsched.cli import main

raise SystemExit(main())
