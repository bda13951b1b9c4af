# docker/Dockerfile, checked by tools/deploy/policy-check.sh with conftest's Dockerfile parser: every
# base image names an exact version or a digest (a floating tag such as node:20-bookworm-slim builds
# a different image every Node release), and dependencies are installed from the lock (npm ci).
package dockerfile

import rego.v1

instructions contains i if {
	some stage in input
	some i in stage
}

instructions contains i if {
	some i in input
	is_object(i)
}

stages contains lower(i.Value[2]) if {
	some i in instructions
	i.Cmd == "from"
	count(i.Value) >= 3
	lower(i.Value[1]) == "as"
}

# node:20.20.2-bookworm-slim, postgres:15.8: the tag starts with a full major.minor.patch version.
exact_version(image) if {
	parts := split(image, "/")
	last := parts[count(parts) - 1]
	tag := split(last, ":")[1]
	regex.match(`^v?[0-9]+\.[0-9]+\.[0-9]+([-_.][A-Za-z0-9._-]+)?$`, tag)
}

pinned(image) if regex.match(`@sha256:[0-9a-f]{64}$`, image)

pinned(image) if exact_version(image)

deny contains sprintf("[base-image-pinned] FROM %s: name an exact version (node:20.20.2-bookworm-slim) or a digest, not a floating tag", [image]) if {
	some i in instructions
	i.Cmd == "from"
	image := i.Value[0]
	not lower(image) in stages
	image != "scratch"
	not pinned(image)
}

deny contains sprintf("[npm-ci] RUN %s: install from package-lock.json with npm ci, not npm install", [concat(" ", i.Value)]) if {
	some i in instructions
	i.Cmd == "run"
	regex.match(`(^|[;&|]\s*|\s)npm\s+(install|i|add)(\s|$)`, concat(" ", i.Value))
}

deny contains "[npm-ci] no RUN npm ci: dependencies are not installed from package-lock.json" if {
	not npm_ci
}

npm_ci if {
	some i in instructions
	i.Cmd == "run"
	regex.match(`(^|\s)npm\s+ci(\s|$)`, concat(" ", i.Value))
}
