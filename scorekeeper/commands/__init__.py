"""One module per `scorekeeper` subcommand; each exposes `add_parser(subparsers)` and `run(args)`."""
