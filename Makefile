# lockstep: the two commands of the README's Quick start, and a few more.
# Both first make sure a ZooKeeper is reachable (scripts/ensure-zookeeper).

GO      ?= go
TESTFLAGS ?= -timeout 20m

.PHONY: demo test zookeeper vet check

## demo: the course's showcase: the visualizer on chapter 04
demo: zookeeper
	$(GO) run ./visualizer

## test: every chapter's tests against a real ZooKeeper
test: zookeeper
	$(GO) test $(TESTFLAGS) ./...

## zookeeper: ZK_SERVERS, Docker, or a local install — installing one if needed
zookeeper:
	@./scripts/ensure-zookeeper

## check: formatting and vet, as CI runs them
check:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
