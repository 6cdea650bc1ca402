_kubectl_pd_completion() {
    local response type value

    response=$(env COMP_WORDS="${COMP_WORDS[*]}" COMP_CWORD=$COMP_CWORD _KUBECTL_PD_COMPLETE=bash_complete "$1")

    while IFS=',' read -r type value; do
        if [[ $type == 'dir' ]]; then
            COMPREPLY=()
            compopt -o dirnames
        elif [[ $type == 'file' ]]; then
            COMPREPLY=()
            compopt -o default
        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=("$value")
        fi
    done <<< "$response"

    return 0
}

_kubectl_pd_completion_setup() {
    complete -o nosort -F _kubectl_pd_completion kubectl-pd
}

_kubectl_pd_completion_setup;
