// Command manifest-check decodes every object of a multi-document YAML stream (what `kustomize
// build` prints, on stdin) strictly into its Kubernetes API type: an unknown or misspelt field, a
// wrong type or an unknown kind fails, naming the object. It prints one line per object and exits 1
// on the first problem. Built by test/integration/deploy-manifests.test.ts.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme,
		admissionregistrationv1.AddToScheme, apiextensionsv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// documents splits a YAML stream on "---" lines, dropping empty documents.
func documents(stream []byte) [][]byte {
	var docs [][]byte
	var current bytes.Buffer
	flush := func() {
		if strings.TrimSpace(current.String()) != "" {
			docs = append(docs, append([]byte(nil), current.Bytes()...))
		}
		current.Reset()
	}
	scanner := bufio.NewScanner(bytes.NewReader(stream))
	scanner.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for scanner.Scan() {
		line := scanner.Text()
		if strings.TrimRight(line, " ") == "---" {
			flush()
			continue
		}
		current.WriteString(line)
		current.WriteByte('\n')
	}
	flush()
	return docs
}

func check(scheme *runtime.Scheme, doc []byte) (string, error) {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return "", fmt.Errorf("not YAML: %w", err)
	}
	name := fmt.Sprintf("%s %s/%s", meta.Kind, meta.Metadata.Namespace, meta.Metadata.Name)
	gv, err := schema.ParseGroupVersion(meta.APIVersion)
	if err != nil {
		return name, err
	}
	object, err := scheme.New(gv.WithKind(meta.Kind))
	if err != nil {
		return name, fmt.Errorf("no Kubernetes API type for %s %s", meta.APIVersion, meta.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, object); err != nil {
		return name, err
	}
	if configMap, ok := object.(*corev1.ConfigMap); ok && configMap.Name == "katib-config" {
		if err := checkKatibConfig(configMap); err != nil {
			return name, err
		}
	}
	if meta.Metadata.Name == "" {
		return name, errors.New("metadata.name is empty")
	}
	return name, nil
}

func main() {
	stream, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "manifest-check:", err)
		os.Exit(2)
	}
	scheme, err := newScheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, "manifest-check:", err)
		os.Exit(2)
	}
	docs := documents(stream)
	if len(docs) == 0 {
		fmt.Fprintln(os.Stderr, "manifest-check: no object on stdin")
		os.Exit(1)
	}
	for i, doc := range docs {
		name, err := check(scheme, doc)
		if err != nil {
			fmt.Fprintf(os.Stderr, "manifest-check: object %d (%s): %v\n", i+1, name, err)
			os.Exit(1)
		}
		fmt.Println("ok", name)
	}
}
