package engine

// PullSecretKey is the data key under which a pull-secret Secret (named by
// InfraEnv.PullSecretRef or Cluster.PullSecretRef) holds the registry auth
// file, as Kubernetes names it for a kubernetes.io/dockerconfigjson Secret.
const PullSecretKey = ".dockerconfigjson"

// PullSecret returns the pull secret held by the Secret named ref (opened:
// it is sealed at rest) and that Secret's revision; "" and 0 when ref is
// empty or names no secret, "" when it does not open with this
// appliance's key.
func (m *Model) PullSecret(ref string) (string, uint64) {
	if ref == "" {
		return "", 0
	}
	s, ok := m.Secret(ref)
	if !ok {
		return "", 0
	}
	v, _, err := m.SecretValue(ref, PullSecretKey)
	if err != nil {
		return "", s.Revision
	}
	return string(v), s.Revision
}
