package main

// Katib v0.19's katib-config (pkg/apis/config/v1beta1 KatibConfig), as its controller reads it
// from the katib-config ConfigMap: every suggestion entry is a whole container, so a misspelt field
// there would reach Katib's pods unnoticed unless it is decoded strictly too.

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

type katibConfig struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Runtime    katibRuntimeConfig `json:"runtime,omitempty"`
	Init       katibInitConfig    `json:"init,omitempty"`
}

type katibRuntimeConfig struct {
	Suggestions       []katibSuggestion       `json:"suggestions,omitempty"`
	EarlyStoppings    []katibEarlyStopping    `json:"earlyStoppings,omitempty"`
	MetricsCollectors []katibMetricsCollector `json:"metricsCollectors,omitempty"`
}

type katibInitConfig struct {
	Controller struct {
		ExperimentSuggestionName    string   `json:"experimentSuggestionName,omitempty"`
		MetricsAddr                 string   `json:"metricsAddr,omitempty"`
		HealthzAddr                 string   `json:"healthzAddr,omitempty"`
		InjectSecurityContext       bool     `json:"injectSecurityContext,omitempty"`
		EnableGRPCProbeInSuggestion *bool    `json:"enableGRPCProbeInSuggestion,omitempty"`
		TrialResources              []string `json:"trialResources,omitempty"`
		WebhookPort                 *int     `json:"webhookPort,omitempty"`
		EnableLeaderElection        bool     `json:"enableLeaderElection,omitempty"`
		LeaderElectionID            string   `json:"leaderElectionID,omitempty"`
	} `json:"controller,omitempty"`
	CertGenerator struct {
		Enable             bool   `json:"enable,omitempty"`
		WebhookServiceName string `json:"webhookServiceName,omitempty"`
		WebhookSecretName  string `json:"webhookSecretName,omitempty"`
	} `json:"certGenerator,omitempty"`
}

type katibSuggestion struct {
	AlgorithmName             string `json:"algorithmName"`
	corev1.Container          `json:",inline"`
	ServiceAccountName        string                           `json:"serviceAccountName,omitempty"`
	VolumeMountPath           string                           `json:"volumeMountPath,omitempty"`
	PersistentVolumeClaimSpec corev1.PersistentVolumeClaimSpec `json:"persistentVolumeClaimSpec,omitempty"`
	PersistentVolumeSpec      corev1.PersistentVolumeSpec      `json:"persistentVolumeSpec,omitempty"`
	PersistentVolumeLabels    map[string]string                `json:"persistentVolumeLabels,omitempty"`
}

type katibEarlyStopping struct {
	AlgorithmName   string                      `json:"algorithmName"`
	Image           string                      `json:"image"`
	ImagePullPolicy corev1.PullPolicy           `json:"imagePullPolicy,omitempty"`
	Resources       corev1.ResourceRequirements `json:"resources,omitempty"`
}

type katibMetricsCollector struct {
	Kind             string                      `json:"kind"`
	Image            string                      `json:"image"`
	ImagePullPolicy  corev1.PullPolicy           `json:"imagePullPolicy,omitempty"`
	Resources        corev1.ResourceRequirements `json:"resources,omitempty"`
	WaitAllProcesses *bool                       `json:"waitAllProcesses,omitempty"`
}

// checkKatibConfig decodes the katib-config ConfigMap's katib-config.yaml strictly.
func checkKatibConfig(configMap *corev1.ConfigMap) error {
	text, ok := configMap.Data["katib-config.yaml"]
	if !ok {
		return fmt.Errorf("katib-config has no katib-config.yaml")
	}
	var config katibConfig
	if err := yaml.UnmarshalStrict([]byte(text), &config); err != nil {
		return fmt.Errorf("katib-config.yaml: %w", err)
	}
	if config.Kind != "KatibConfig" || config.APIVersion != "config.kubeflow.org/v1beta1" {
		return fmt.Errorf("katib-config.yaml: %s %s is not config.kubeflow.org/v1beta1 KatibConfig", config.APIVersion, config.Kind)
	}
	for _, s := range config.Runtime.Suggestions {
		if s.AlgorithmName == "" || s.Image == "" {
			return fmt.Errorf("katib-config.yaml: a suggestion needs algorithmName and image")
		}
	}
	for _, e := range config.Runtime.EarlyStoppings {
		if e.AlgorithmName == "" || e.Image == "" {
			return fmt.Errorf("katib-config.yaml: an early stopping needs algorithmName and image")
		}
	}
	return nil
}
