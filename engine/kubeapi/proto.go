package kubeapi

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// protobufType is the content type kubectl's typed clients send the v1
// kinds in (kubectl create namespace, create secret, create configmap).
const protobufType = "application/vnd.kubernetes.protobuf"

// protoCodec decodes the v1 kinds from Kubernetes' protobuf envelope.
type protoCodec struct {
	ser *protobuf.Serializer
}

func newProtoCodec() (*protoCodec, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("kubeapi: protobuf scheme: %w", err)
	}
	return &protoCodec{ser: protobuf.NewSerializer(scheme, scheme)}, nil
}

// toJSON decodes a protobuf body of a v1 kind into its JSON form.
func (p *protoCodec) toJSON(b []byte) ([]byte, error) {
	obj, _, err := p.ser.Decode(b, nil, nil)
	if err != nil {
		return nil, err
	}
	switch obj.(type) {
	case *corev1.Namespace, *corev1.Secret, *corev1.ConfigMap:
	default:
		return nil, fmt.Errorf("%T is not served", obj)
	}
	return json.Marshal(obj)
}
