// Command ssa-corpus records random apply/update sequences run through structured-merge-diff's
// merge.Updater, with the objects and manager field sets it produces, for tkube's replay test
// (test/unit/apiserver/apply/corpus.test.ts). See README.md for how to build and run it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"
	smdschema "sigs.k8s.io/structured-merge-diff/v4/schema"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

type schemaFile struct {
	Root        string                  `json:"root"`
	Definitions map[string]*spec.Schema `json:"definitions"`
}

type identity struct{}

func (identity) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}
func (identity) IsMissingVersionError(error) bool { return false }

type step struct {
	Op      string      `json:"op"` // "apply" or "update"
	Manager string      `json:"manager"`
	Force   bool        `json:"force,omitempty"`
	Object  interface{} `json:"object"`
}

type managerSet struct {
	APIVersion string          `json:"apiVersion"`
	Applied    bool            `json:"applied"`
	FieldsV1   json.RawMessage `json:"fieldsV1"`
}

type result struct {
	Error    string                `json:"error,omitempty"`
	Object   interface{}           `json:"object,omitempty"`
	Changed  bool                  `json:"changed"`
	Managers map[string]managerSet `json:"managers"`
}

type sequence struct {
	Type    string      `json:"type,omitempty"` // the definition, when not the schema's root
	Live    interface{} `json:"live"`
	Steps   []step      `json:"steps"`
	Results []result    `json:"results"`
}

var r *rand.Rand

func pick(xs ...string) string { return xs[r.Intn(len(xs))] }
func maybe(p float64) bool     { return r.Float64() < p }

func stringMap(keys ...string) map[string]interface{} {
	out := map[string]interface{}{}
	for _, k := range keys {
		if maybe(0.5) {
			out[k] = pick("1", "2")
		}
	}
	return out
}

func stringList(max int, vocab ...string) []interface{} {
	out := []interface{}{}
	seen := map[string]bool{}
	for i := r.Intn(max + 1); i > 0; i-- {
		v := pick(vocab...)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func randomObject() map[string]interface{} {
	o := map[string]interface{}{}
	if maybe(0.3) {
		o["name"] = pick("a", "b")
	}
	if maybe(0.6) {
		o["labels"] = stringMap("x", "y", "z")
	}
	if maybe(0.3) {
		o["selector"] = stringMap("x", "y")
	}
	if maybe(0.4) {
		o["tags"] = stringList(3, "t1", "t2", "t3")
	}
	if maybe(0.3) {
		o["args"] = stringList(2, "-v", "-q", "-x")
	}
	if maybe(0.4) {
		ports := []interface{}{}
		seen := map[string]bool{}
		for i := r.Intn(3); i >= 0; i-- {
			p := map[string]interface{}{"port": int64(80 + r.Intn(2))}
			if maybe(0.5) {
				p["protocol"] = pick("TCP", "UDP")
			}
			if maybe(0.5) {
				p["name"] = pick("http", "dns")
			}
			proto, _ := p["protocol"].(string)
			if proto == "" {
				proto = "TCP"
			}
			key := fmt.Sprint(p["port"], proto)
			if !seen[key] {
				seen[key] = true
				ports = append(ports, p)
			}
		}
		o["ports"] = ports
	}
	if maybe(0.6) {
		containers := []interface{}{}
		for _, name := range stringList(2, "web", "side") {
			c := map[string]interface{}{"name": name}
			if maybe(0.6) {
				c["image"] = pick("img:1", "img:2")
			}
			if maybe(0.4) {
				env := []interface{}{}
				for _, n := range stringList(2, "A", "B") {
					e := map[string]interface{}{"name": n}
					if maybe(0.7) {
						e["value"] = pick("1", "2")
					}
					env = append(env, e)
				}
				c["env"] = env
			}
			if maybe(0.3) {
				c["resources"] = stringMap("cpu", "memory")
			}
			containers = append(containers, c)
		}
		o["containers"] = containers
	}
	if maybe(0.5) {
		s := map[string]interface{}{}
		if maybe(0.6) {
			s["replicas"] = int64(r.Intn(3))
		}
		if maybe(0.3) {
			s["paused"] = maybe(0.5)
		}
		if maybe(0.4) {
			s["template"] = map[string]interface{}{"a": map[string]interface{}{"b": pick("1", "2")}, "l": stringList(2, "p", "q")}
		}
		o["spec"] = s
	}
	return o
}

func encodeManagers(m fieldpath.ManagedFields) map[string]managerSet {
	out := map[string]managerSet{}
	names := []string{}
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		js, err := m[name].Set().ToJSON()
		if err != nil {
			panic(err)
		}
		out[name] = managerSet{APIVersion: string(m[name].APIVersion()), Applied: m[name].Applied(), FieldsV1: js}
	}
	return out
}

func main() {
	count := flag.Int("n", 300, "sequences to record")
	steps := flag.Int("steps", 5, "operations per sequence")
	seed := flag.Int64("seed", 1, "random seed")
	schemaPath := flag.String("schema", "schema.json", "definitions the objects follow (files separated by commas, merged; the first names the root)")
	rootsFlag := flag.String("roots", "", "definitions the sequences take turns over (separated by commas; default: the root)")
	objectsPath := flag.String("fieldsets", "", "instead of sequences: print ToFieldSet of each object in this JSON list")
	flag.Parse()
	r = rand.New(rand.NewSource(*seed))

	var file schemaFile
	for i, path := range strings.Split(*schemaPath, ",") {
		raw, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var part schemaFile
		if err := json.Unmarshal(raw, &part); err != nil {
			panic(err)
		}
		if i == 0 {
			file = part
			continue
		}
		for name, definition := range part.Definitions {
			file.Definitions[name] = definition
		}
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(file.Definitions, false)
	if err != nil {
		panic(err)
	}
	root := file.Root
	if *objectsPath != "" {
		printFieldSets(s, *objectsPath)
		return
	}
	roots := []string{root}
	if *rootsFlag != "" {
		roots = strings.Split(*rootsFlag, ",")
	}
	updater := merge.Updater{Converter: identity{}}
	const version = fieldpath.APIVersion("v1")

	out := []sequence{}
	for n := 0; n < *count; n++ {
		seqRoot := roots[n%len(roots)]
		parser := typed.ParseableType{Schema: s, TypeRef: smdschema.TypeRef{NamedType: &seqRoot}}
		// A random object the type accepts (schema-made ones may repeat a set's item or key).
		randomTyped := func() (interface{}, *typed.TypedValue) {
			for {
				var object interface{}
				if seqRoot == root {
					object = randomObject()
				} else {
					object = schemaObject(s, smdschema.TypeRef{NamedType: &seqRoot}, 0)
				}
				if value, err := parser.FromUnstructured(object); err == nil {
					return object, value
				}
			}
		}
		seq := sequence{Live: map[string]interface{}{}}
		if seqRoot != root {
			seq.Type = seqRoot
		}
		live, err := parser.FromUnstructured(seq.Live)
		if err != nil {
			panic(err)
		}
		managers := fieldpath.ManagedFields{}
		for i := 0; i < *steps; i++ {
			object, typedObject := randomTyped()
			st := step{Object: object}
			res := result{}
			if maybe(0.7) {
				st.Op, st.Manager, st.Force = "apply", pick("apply-a", "apply-b", "apply-c"), maybe(0.3)
				config := typedObject
				newObject, newManagers, err := updater.Apply(live, config, version, managers.Copy(), st.Manager, st.Force)
				if err != nil {
					res.Error = err.Error()
				} else {
					managers = newManagers
					if newObject != nil {
						live = newObject
						res.Changed = true
					}
				}
			} else {
				st.Op, st.Manager = "update", pick("update-u", "update-v")
				newObject := typedObject
				_, newManagers, err := updater.Update(live, newObject, version, managers.Copy(), st.Manager)
				if err != nil {
					res.Error = err.Error()
				} else {
					managers = newManagers
					live = newObject
					res.Changed = true
				}
			}
			res.Object = live.AsValue().Unstructured()
			res.Managers = encodeManagers(managers)
			seq.Steps = append(seq.Steps, st)
			seq.Results = append(seq.Results, res)
		}
		out = append(out, seq)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}

type fieldSetCase struct {
	Object   interface{}     `json:"object"`
	FieldsV1 json.RawMessage `json:"fieldsV1,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// printFieldSets records ToFieldSet of given objects, grouped by the definition they are
// ({"<definition>": [objects]}): a check of the schema conversion itself (e.g. over the built-in
// definitions tkube serves).
func printFieldSets(s *smdschema.Schema, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	var objects map[string][]interface{}
	if err := json.Unmarshal(raw, &objects); err != nil {
		panic(err)
	}
	out := map[string][]fieldSetCase{}
	for root, list := range objects {
		root := root
		parser := typed.ParseableType{Schema: s, TypeRef: smdschema.TypeRef{NamedType: &root}}
		for _, object := range list {
			c := fieldSetCase{Object: object}
			tv, err := parser.FromUnstructured(object)
			if err == nil {
				var set *fieldpath.Set
				set, err = tv.ToFieldSet()
				if err == nil {
					c.FieldsV1, err = set.ToJSON()
				}
			}
			if err != nil {
				c.Error = err.Error()
			}
			out[root] = append(out[root], c)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}

// schemaObject makes a random object of any type in the schema (the built-in kinds' sequences):
// a few of each struct's fields, map entries and list items from a small vocabulary so that
// managers collide, every key field of associative list items set (upstream's definitions give
// keys no defaults) and no two items with the same key.
func schemaObject(s *smdschema.Schema, tr smdschema.TypeRef, depth int) interface{} {
	atom, ok := s.Resolve(tr)
	if !ok {
		panic(fmt.Sprintf("unresolvable type %v", tr))
	}
	switch {
	case atom.Scalar != nil:
		return scalarValue(*atom.Scalar)
	case atom.List != nil:
		return schemaList(s, atom.List, depth)
	case atom.Map != nil:
		return schemaMap(s, atom.Map, depth, nil)
	}
	return nil
}

func scalarValue(scalar smdschema.Scalar) interface{} {
	switch scalar {
	case smdschema.Numeric:
		return int64(80 + r.Intn(2))
	case smdschema.Boolean:
		return maybe(0.5)
	}
	return pick("a", "b")
}

// Fields whose values the updater treats as opaque metadata of the object itself.
var skippedFields = map[string]bool{"managedFields": true, "apiVersion": true, "kind": true}

// Fields of the built-in kinds where managers meet (lists keyed by name or port, label maps).
var commonFields = map[string]bool{
	"metadata": true, "labels": true, "annotations": true, "spec": true, "template": true,
	"containers": true, "ports": true, "env": true, "image": true, "name": true, "value": true,
	"selector": true, "matchLabels": true, "replicas": true, "data": true, "port": true,
	"containerPort": true, "protocol": true, "targetPort": true, "type": true,
}

// Deep enough for a Deployment's container ports (spec.template.spec.containers[].ports[]).
const maxDepth = 9

func schemaMap(s *smdschema.Schema, m *smdschema.Map, depth int, set map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range set {
		out[k] = v
	}
	if depth > maxDepth {
		return out
	}
	if len(m.Fields) > 0 {
		// The fields objects usually carry, often; one other field, sometimes. In name order:
		// schemaconv keeps the order it met them in a Go map, which differs run to run.
		fields := append([]smdschema.StructField{}, m.Fields...)
		sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
		chosen := []smdschema.StructField{}
		for _, f := range fields {
			if commonFields[f.Name] && maybe(0.6) {
				chosen = append(chosen, f)
			}
		}
		if len(chosen) == 0 || maybe(0.3) {
			chosen = append(chosen, fields[r.Intn(len(fields))])
		}
		for _, f := range chosen {
			if skippedFields[f.Name] {
				continue
			}
			if _, given := out[f.Name]; !given {
				out[f.Name] = schemaObject(s, f.Type, depth+1)
			}
		}
		return out
	}
	for _, key := range []string{"x", "y"} {
		if maybe(0.5) {
			out[key] = schemaObject(s, m.ElementType, depth+1)
		}
	}
	return out
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func schemaList(s *smdschema.Schema, l *smdschema.List, depth int) []interface{} {
	out := []interface{}{}
	if depth > maxDepth {
		return out
	}
	seen := map[string]bool{}
	for i := r.Intn(3); i > 0; i-- {
		var item interface{}
		if l.ElementRelationship == smdschema.Associative && len(l.Keys) > 0 {
			atom, _ := s.Resolve(l.ElementType)
			if atom.Map == nil {
				continue
			}
			keys := map[string]interface{}{}
			for _, key := range l.Keys {
				for _, f := range atom.Map.Fields {
					if f.Name == key {
						keys[key] = schemaObject(s, f.Type, depth+1)
					}
				}
			}
			item = schemaMap(s, atom.Map, depth+1, keys)
		} else {
			item = schemaObject(s, l.ElementType, depth+1)
		}
		id, _ := json.Marshal(item)
		if l.ElementRelationship == smdschema.Associative && len(l.Keys) > 0 {
			keyValues := []interface{}{}
			for _, key := range l.Keys {
				keyValues = append(keyValues, item.(map[string]interface{})[key])
			}
			id, _ = json.Marshal(keyValues)
		}
		if seen[string(id)] {
			continue
		}
		seen[string(id)] = true
		out = append(out, item)
	}
	return out
}
