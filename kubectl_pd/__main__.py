from kubectl_pd.cli import main

main(prog_name="kubectl-pd")
