"""Tab on why-pending's TARGET and on -f reaches the live and file completers."""

from collections.abc import Callable

MD = {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelDeployment",
      "metadata": {"name": "qwen-pd", "namespace": "team-a"}, "spec": {"roles": []}}
OTHER = {**MD, "metadata": {"name": "llama-pd", "namespace": "team-b"}}


def test_target_completes_modeldeployments_of_the_namespace(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver([MD, OTHER], namespace="team-a")
    r = cli(["__complete", "why-pending", "q"], env=env)
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0].split("\t")[0] == "qwen-pd"
    assert r.stdout.splitlines()[-1] == ":4"
    assert "llama-pd" not in r.stdout
    everywhere = cli(["__complete", "why-pending", "-A", ""], env=env)
    assert {line.split("\t")[0] for line in everywhere.stdout.splitlines()[:-1]} >= {"qwen-pd", "llama-pd"}
    assert set(server.methods) == {"GET"}


def test_target_completion_is_silent_without_a_cluster(cli: Callable, tmp_path) -> None:
    r = cli(["__complete", "why-pending", "q"], env={"KUBECONFIG": str(tmp_path / "absent")})
    assert (r.exit_code, r.stdout, r.stderr) == (0, ":4\n", "")


def test_from_file_hands_paths_to_the_shell(cli: Callable) -> None:
    for command in (["lint", "-f", ""], ["why-pending", "--from-file", ""]):
        r = cli(["__complete", *command])
        assert r.exit_code == 0
        assert r.stdout.splitlines()[-1] == ":0", r.stdout  # default: the shell completes file names
