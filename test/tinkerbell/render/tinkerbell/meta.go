// Package tinkerbell mirrors the JSON shape of Tinkerbell's tinkerbell.org/v1alpha1 types
// (api/v1alpha1/tinkerbell in github.com/tinkerbell/tinkerbell) and of the Kubernetes metadata they
// embed: field names, JSON tags and omitempty rules as the controller marshals them. It is named
// tinkerbell like Tinkerbell's package so that template errors name the same types.
package tinkerbell

import (
	"encoding/json"
	"time"
)

// Time is metav1.Time's JSON: RFC 3339 in UTC to the second, and null when zero.
type Time struct {
	time.Time
}

func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = p.Local()
	return nil
}

// TypeMeta is metav1.TypeMeta (inlined).
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is metav1.ObjectMeta as of k8s.io/apimachinery v0.36 (creationTimestamp omitzero).
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	SelfLink                   string               `json:"selfLink,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty,omitzero"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string             `json:"finalizers,omitempty"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

type ManagedFieldsEntry struct {
	Manager     string           `json:"manager,omitempty"`
	Operation   string           `json:"operation,omitempty"`
	APIVersion  string           `json:"apiVersion,omitempty"`
	Time        *Time            `json:"time,omitempty"`
	FieldsType  string           `json:"fieldsType,omitempty"`
	FieldsV1    *json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string           `json:"subresource,omitempty"`
}
