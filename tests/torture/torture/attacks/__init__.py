"""One module per attack: NUMBER (the issue's numbering), NAME (the --only name), TITLE, BUDGET_S
(short, full bounds in seconds) and run(ctx, result), which fills the Result the runner passes (so
figures stay when an attack stops early). torture.main discovers them; nothing lists them by hand."""
