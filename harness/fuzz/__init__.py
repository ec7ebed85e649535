"""The fuzz harness (docs/fuzzing.md): `cases` (a case: files and a command line), `corpus`
(the valid inputs), `generators` with `mutations`, `graph_mutations` and `formats` (one
damaged case per class), `hostile` (issue 9's fixed cases), `runner` (the fork server),
`snapshot` and `outputs` (which files a command may change), and `harness` (run a case, judge it)."""
