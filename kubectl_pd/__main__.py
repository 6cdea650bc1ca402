from kubectl_pd.cli import main

main()
