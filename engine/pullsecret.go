package engine

// PullSecretKey is the data key under which a pull-secret Secret (named by
// InfraEnv.PullSecretRef or Cluster.PullSecretRef) holds the registry auth
// file, as Kubernetes names it for a kubernetes.io/dockerconfigjson Secret.
const PullSecretKey = ".dockerconfigjson"

// PullSecret returns the pull secret held by the Secret named ref and that
// Secret's revision; "" and 0 when ref is empty or names no secret.
func (m *Model) PullSecret(ref string) (string, uint64) {
	if ref == "" {
		return "", 0
	}
	s, ok := m.Secret(ref)
	if !ok {
		return "", 0
	}
	return string(s.Data[PullSecretKey]), s.Revision
}
