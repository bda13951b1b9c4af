# The policy tools/deploy/policy-check.sh holds the rendered k8s/ (base and every overlay) to, with
# conftest. Input: every rendered file at once (conftest --combine), so that rules can look across
# objects (a Deployment and the NetworkPolicies that select it). Each finding names its rule; a rule
# is waived for an object only by an entry of exceptions.yaml, which says why.
package main

import rego.v1

objects contains obj if {
	some file in input
	is_array(file.contents)
	some obj in file.contents
	is_object(obj)
}

objects contains file.contents if {
	some file in input
	is_object(file.contents)
}

workload_kinds := {"Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet"}

# Every workload's pod template (CronJobs one level deeper).
pods contains {"obj": obj, "spec": obj.spec.template.spec, "labels": object.get(obj.spec.template, ["metadata", "labels"], {})} if {
	some obj in objects
	workload_kinds[obj.kind]
}

pods contains {"obj": obj, "spec": obj.spec.jobTemplate.spec.template.spec, "labels": object.get(obj.spec.jobTemplate.spec.template, ["metadata", "labels"], {})} if {
	some obj in objects
	obj.kind == "CronJob"
}

containers(spec) := array.concat(object.get(spec, "containers", []), object.get(spec, "initContainers", []))

excepted(rule, obj) if {
	some e in data.exceptions
	e.rule == rule
	e.kind == obj.kind
	obj.metadata.name in e.names
}

finding(rule, obj, msg) := sprintf("[%s] %s/%s: %s", [rule, obj.kind, obj.metadata.name, msg])

# --- the pod and its containers -------------------------------------------------------------

deny contains finding("run-as-non-root", p.obj, sprintf("container %s may run as root (runAsNonRoot: true, on the pod or the container)", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	not object.get(c, ["securityContext", "runAsNonRoot"], object.get(p.spec, ["securityContext", "runAsNonRoot"], false))
	not excepted("run-as-non-root", p.obj)
}

deny contains finding("no-privilege-escalation", p.obj, sprintf("container %s lacks allowPrivilegeEscalation: false", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	object.get(c, ["securityContext", "allowPrivilegeEscalation"], true) != false
	not excepted("no-privilege-escalation", p.obj)
}

deny contains finding("no-privileged", p.obj, sprintf("container %s is privileged", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	object.get(c, ["securityContext", "privileged"], false) == true
	not excepted("no-privileged", p.obj)
}

deny contains finding("read-only-root-fs", p.obj, sprintf("container %s lacks readOnlyRootFilesystem: true", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	object.get(c, ["securityContext", "readOnlyRootFilesystem"], false) != true
	not excepted("read-only-root-fs", p.obj)
}

deny contains finding("drop-all-capabilities", p.obj, sprintf("container %s does not drop ALL capabilities", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	not "ALL" in object.get(c, ["securityContext", "capabilities", "drop"], [])
	not excepted("drop-all-capabilities", p.obj)
}

deny contains finding("seccomp-runtime-default", p.obj, "the pod has no seccompProfile RuntimeDefault (or Localhost)") if {
	some p in pods
	not object.get(p.spec, ["securityContext", "seccompProfile", "type"], "") in {"RuntimeDefault", "Localhost"}
	not excepted("seccomp-runtime-default", p.obj)
}

deny contains finding("no-host-namespaces", p.obj, sprintf("the pod shares the node's %s", [field])) if {
	some p in pods
	some field in ["hostNetwork", "hostPID", "hostIPC"]
	object.get(p.spec, field, false) == true
	not excepted("no-host-namespaces", p.obj)
}

deny contains finding("no-automount-token", p.obj, "automountServiceAccountToken is not false: the pod would carry an API token") if {
	some p in pods
	object.get(p.spec, "automountServiceAccountToken", true) != false
	not excepted("no-automount-token", p.obj)
}

deny contains finding("resource-requests", p.obj, sprintf("container %s has no %s request", [c.name, r])) if {
	some p in pods
	some c in containers(p.spec)
	some r in ["cpu", "memory"]
	not c.resources.requests[r]
	not excepted("resource-requests", p.obj)
}

deny contains finding("memory-limit", p.obj, sprintf("container %s has no memory limit", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	not c.resources.limits.memory
	not excepted("memory-limit", p.obj)
}

deny contains finding("cpu-limit", p.obj, sprintf("container %s has no CPU limit", [c.name])) if {
	some p in pods
	some c in containers(p.spec)
	not c.resources.limits.cpu
	not excepted("cpu-limit", p.obj)
}

# An image with an explicit tag other than latest, or a digest.
pinned(image) if contains(image, "@sha256:")

pinned(image) if {
	not contains(image, "@")
	parts := split(image, "/")
	last := parts[count(parts) - 1]
	contains(last, ":")
	not endswith(last, ":latest")
}

deny contains finding("image-pinned", p.obj, sprintf("container %s: image %q has no tag, or latest", [c.name, c.image])) if {
	some p in pods
	some c in containers(p.spec)
	not pinned(c.image)
	not excepted("image-pinned", p.obj)
}

# --- network policies -------------------------------------------------------------------------

policies := [obj | some obj in objects; obj.kind == "NetworkPolicy"]

ingress_policy(np) if "Ingress" in object.get(np.spec, "policyTypes", ["Ingress"])

deny contains "[default-deny-ingress] no NetworkPolicy selects every pod ({} podSelector) for Ingress with no rule" if {
	count(pods) > 0
	not default_deny
}

default_deny if {
	some np in policies
	np.spec.podSelector == {}
	ingress_policy(np)
	count(object.get(np.spec, "ingress", [])) == 0
}

# A label selector (matchLabels and matchExpressions) against a set of labels.
selects(selector, labels) if {
	every k, v in object.get(selector, "matchLabels", {}) {
		labels[k] == v
	}
	every e in object.get(selector, "matchExpressions", []) {
		expression(e, labels)
	}
}

expression(e, labels) if {
	e.operator == "In"
	labels[e.key] in e.values
}

expression(e, labels) if {
	e.operator == "NotIn"
	not labels[e.key] in e.values
}

expression(e, labels) if {
	e.operator == "Exists"
	labels[e.key]
}

expression(e, labels) if {
	e.operator == "DoesNotExist"
	not labels[e.key]
}

# Every port a container declares is opened by some ingress rule of a policy selecting its pod (by
# number or name): a port no rule names cannot be reached under the default deny.
port_allowed(p, c, port) if {
	some np in policies
	ingress_policy(np)
	selects(np.spec.podSelector, p.labels)
	some rule in object.get(np.spec, "ingress", [])
	rule_port(rule, port)
}

rule_port(rule, _) if count(object.get(rule, "ports", [])) == 0

rule_port(rule, port) if {
	some rp in rule.ports
	rp.port in {port.containerPort, object.get(port, "name", "")}
}

deny contains finding("network-policy-ports", p.obj, sprintf("container %s port %v is allowed by no ingress NetworkPolicy rule", [c.name, port.containerPort])) if {
	default_deny
	some p in pods
	some c in containers(p.spec)
	some port in object.get(c, "ports", [])
	not port_allowed(p, c, port)
	not excepted("network-policy-ports", p.obj)
}

# The admin listener is for operators, never behind the public Ingress: only an Ingress of its own
# that routes nothing else and lets only listed addresses through (k8s/components/admin-ingress/).
admin_backend(path) if object.get(path.backend, ["service", "port", "name"], "") == "admin"

admin_backend(path) if object.get(path.backend, ["service", "port", "number"], 0) == 3002

allowlisted(obj) if {
	some key in {"nginx.ingress.kubernetes.io/whitelist-source-range", "nginx.ingress.kubernetes.io/allowlist-source-range"}
	object.get(obj.metadata, ["annotations", key], "") != ""
}

# An Ingress for operators: admin paths alone, and an address allowlist.
admin_ingress(obj) if {
	allowlisted(obj)
	every r in obj.spec.rules {
		every path in r.http.paths {
			admin_backend(path)
		}
	}
}

deny contains finding("admin-not-exposed", obj, sprintf("routes %s to the admin port (only an Ingress of admin paths alone, with an address allowlist, may)", [obj.metadata.name])) if {
	some obj in objects
	obj.kind == "Ingress"
	some r in obj.spec.rules
	some path in r.http.paths
	admin_backend(path)
	not admin_ingress(obj)
}

# The admin port takes connections from named namespaces only (the ingress controller's, the
# monitoring one): not from every pod of its own namespace, not from anywhere.
admin_rules contains {"policy": policy, "rule": rule} if {
	some policy in objects
	policy.kind == "NetworkPolicy"
	object.get(policy.spec, ["podSelector", "matchLabels", "app.kubernetes.io/name"], "") == "api-gateway"
	some rule in object.get(policy.spec, "ingress", [])
	some rp in object.get(rule, "ports", [])
	rp.port in {3002, "admin"}
}

named_namespace(peer) if object.get(peer, ["namespaceSelector", "matchLabels", "kubernetes.io/metadata.name"], "") != ""

deny contains finding("admin-from-ingress-only", a.policy, "lets a peer other than a named namespace reach the admin port") if {
	some a in admin_rules
	some peer in object.get(a.rule, "from", [{}])
	not named_namespace(peer)
}

# The services connect securely unless the rendering says, on seed-config, that it is for development.
deny contains finding("secure-connections", obj, "REQUIRE_SECURE_CONNECTIONS is not \"true\" (plaintext belongs in an overlay that annotates seed-config seed-messaging.io/insecure)") if {
	some obj in objects
	obj.kind == "ConfigMap"
	obj.metadata.name == "seed-config"
	object.get(obj, ["data", "REQUIRE_SECURE_CONNECTIONS"], "") != "true"
	object.get(obj.metadata, ["annotations", "seed-messaging.io/insecure"], "") == ""
}

deny contains finding("admin-not-exposed", obj, "exposes the admin port outside the cluster") if {
	some obj in objects
	obj.kind == "Service"
	object.get(obj.spec, "type", "ClusterIP") in {"NodePort", "LoadBalancer"}
	some port in obj.spec.ports
	port.name == "admin"
}
