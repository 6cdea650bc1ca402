"""The real-control-plane tier (marker `cluster`): etcd, kube-apiserver, kube-scheduler, kwok and Kueue
built from Go modules and started on 127.0.0.1 by scripts/real-cluster. Run with `pytest -m cluster`."""
