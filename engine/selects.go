package engine

// Selects reports whether a non-empty equality label selector (an
// infra-env's NMStateConfig selector, an InfraEnv's
// nmStateConfigLabelSelector.matchLabels) matches labels: every key with
// its value. An empty selector selects nothing, as upstream's does.
func Selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
