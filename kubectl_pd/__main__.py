from kubectl_pd.commands.cli import main

main()
