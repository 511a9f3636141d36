package zkserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Install is a ZooKeeper installation that can run QuorumPeerMain.
type Install struct {
	Where     string // human description: "Debian package (/usr/share/java)", …
	Java      string // java executable
	Classpath string // -cp argument
	// Lib is the directory holding zookeeper-X.Y.Z.jar (for Version).
	Lib string
	// StockConfig is the zoo.cfg the install ships (Debian's example, the
	// tarball's zoo_sample.cfg); empty when none was found, and then
	// stockConfig falls back to the same settings built in.
	StockConfig string
}

// FindInstall looks for ZooKeeper jars (ZOOKEEPER_HOME, Debian, Homebrew) and
// a java executable (JAVA_HOME, then PATH).
func FindInstall() (Install, error) {
	return findInstall(os.Getenv, fileExists, exec.LookPath)
}

var errNoInstall = errors.New("no ZooKeeper jars found (ZOOKEEPER_HOME, /usr/share/java/zookeeper.jar, Homebrew)")

// findInstall is FindInstall with the file system and environment passed in.
func findInstall(getenv func(string) string, exists func(string) bool, lookPath func(string) (string, error)) (Install, error) {
	var inst Install
	switch home := getenv("ZOOKEEPER_HOME"); {
	case home != "":
		// Apache's tarball layout: the server jar and its dependencies in lib/.
		if !exists(filepath.Join(home, "lib")) {
			return Install{}, fmt.Errorf("ZOOKEEPER_HOME=%s has no lib/ directory", home)
		}
		inst = Install{Where: "ZOOKEEPER_HOME=" + home, Classpath: filepath.Join(home, "lib", "*"), Lib: filepath.Join(home, "lib"),
			StockConfig: firstExisting(exists, filepath.Join(home, "conf", "zoo_sample.cfg"))}
	case exists("/usr/share/java/zookeeper.jar"):
		// Debian: zookeeper.jar's manifest lists its dependencies; we add a
		// logging backend so the server's log goes to our log file.
		cp := []string{"/usr/share/java/zookeeper.jar"}
		if exists("/usr/share/java/slf4j-simple.jar") {
			cp = append(cp, "/usr/share/java/slf4j-simple.jar")
		}
		inst = Install{Where: "Debian package (/usr/share/java)", Classpath: strings.Join(cp, string(os.PathListSeparator)), Lib: "/usr/share/java",
			StockConfig: firstExisting(exists, "/etc/zookeeper/conf_example/zoo.cfg", "/etc/zookeeper/conf/zoo.cfg")}
	default:
		for _, prefix := range []string{"/opt/homebrew", "/usr/local", "/home/linuxbrew/.linuxbrew"} {
			lib := filepath.Join(prefix, "opt", "zookeeper", "libexec", "lib")
			if exists(lib) {
				inst = Install{Where: "Homebrew (" + lib + ")", Classpath: filepath.Join(lib, "*"), Lib: lib,
					StockConfig: firstExisting(exists, filepath.Join(prefix, "etc", "zookeeper", "zoo_sample.cfg"))}
				break
			}
		}
		if inst.Classpath == "" {
			return Install{}, errNoInstall
		}
	}
	java, err := findJava(getenv, exists, lookPath)
	if err != nil {
		return Install{}, fmt.Errorf("found ZooKeeper (%s) but %w", inst.Where, err)
	}
	inst.Java = java
	return inst, nil
}

func findJava(getenv func(string) string, exists func(string) bool, lookPath func(string) (string, error)) (string, error) {
	if home := getenv("JAVA_HOME"); home != "" {
		if j := filepath.Join(home, "bin", "java"); exists(j) {
			return j, nil
		}
	}
	j, err := lookPath("java")
	if err != nil {
		return "", errors.New("no java on PATH (install a JRE, e.g. apt-get install default-jre-headless)")
	}
	return j, nil
}

func firstExisting(exists func(string) bool, paths ...string) string {
	for _, p := range paths {
		if exists(p) {
			return p
		}
	}
	return ""
}

var jarVersion = regexp.MustCompile(`^zookeeper-([0-9]+\.[0-9]+\.[0-9]+)\.jar$`)

// Version is the ZooKeeper version of the install, read from the name of its
// zookeeper-X.Y.Z.jar ("3.8.0"); "" when no such jar is there.
func (inst Install) Version() string {
	entries, _ := os.ReadDir(inst.Lib)
	for _, e := range entries {
		if m := jarVersion.FindStringSubmatch(e.Name()); m != nil {
			return m[1]
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
