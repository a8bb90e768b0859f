from conveyor.cli import main

main()
