"""The module layout's rules (docs/development.md "Modules"), checked on the package's own description,
on the sources' imports and on the linked daemon: a rule broken by a new dependency or an import fails
here, naming the module and what it reached."""
import os
import re
import shutil
import subprocess

from common import *  # noqa: F401,F403

SOURCES = os.path.join(ROOT, "Sources")

# Who may import whom: each module of ours and the modules it may use (ours and the C libraries').
# Lowest first; a module not listed here is a new one, and must be placed.
MAY_IMPORT = {
    "TouchCore": set(),
    "TouchSystem": {"CLinux"},
    "TouchInput": {"TouchCore", "TouchSystem", "CEvdev", "CUdev"},
    "TouchProtocol": {"TouchCore", "TouchSystem", "TouchInput"},
    "TouchScene": {"TouchCore", "TouchSystem", "TouchInput", "TouchProtocol", "CXkbcommon", "CEvdev"},
    "VisualizerPage": {"EmbedPage"},   # its build plugin
    "TouchDaemon": {"TouchCore", "TouchSystem", "TouchInput", "TouchProtocol", "TouchScene", "VisualizerPage",
                    "CLinux", "CXkbcommon", "CEvdev"},
    "TouchClients": {"TouchCore", "TouchSystem", "TouchInput", "TouchProtocol", "TouchScene", "VisualizerPage",
                     "CLinux", "CSystemd", "CMosquitto", "CLiblo", "CWslay", "CWlrToplevel"},
    "touchbridged": {"TouchDaemon", "TouchSystem", "TouchProtocol"},
}
STANDARD = {"Glibc", "Synchronization", "PackageDescription", "PackagePlugin"}


def package_targets():
    out = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return {t["name"]: set(t.get("target_dependencies", [])) for t in json.loads(out.stdout)["targets"]}


def closure(graph, name):
    seen, todo = set(), [name]
    while todo:
        for d in graph.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


class LayeringTests(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.graph = package_targets()

    def test_each_module_depends_only_on_what_it_may(self):
        for name, allowed in MAY_IMPORT.items():
            self.assertIn(name, self.graph, "Package.swift has no target " + name)
            extra = self.graph[name] - allowed
            self.assertFalse(extra, "Package.swift: %s depends on %s, which it may not (docs/development.md)"
                             % (name, ", ".join(sorted(extra))))

    def test_the_daemon_links_none_of_the_clients_libraries(self):
        reached = closure(self.graph, "touchbridged")
        for library in ("CMosquitto", "CSystemd", "CLiblo", "CWslay", "CWlrToplevel", "TouchClients"):
            self.assertNotIn(library, reached, "touchbridged's target graph reaches " + library)
        # And what the linker made of it: sd_notify is a datagram of our own (TouchSystem/SystemdNotifier).
        out = subprocess.run(["ldd", DAEMON], capture_output=True, text=True, timeout=60).stdout
        for library in ("libmosquitto", "libsystemd", "liblo", "libwslay", "libnettle", "libwayland"):
            self.assertNotIn(library, out, "touchbridged is linked with " + library)

    def test_the_clients_never_reach_the_daemon(self):
        self.assertNotIn("TouchDaemon", closure(self.graph, "TouchClients"))

    def test_every_import_in_the_sources_is_allowed(self):
        # SwiftPM lets a file import a module that is built anyway though its target does not declare it:
        # the imports themselves are the rule.
        ours = set(MAY_IMPORT) | {"TouchClients", "TouchDaemon"}
        for name, allowed in MAY_IMPORT.items():
            for folder, _, files in os.walk(os.path.join(SOURCES, name)):
                for f in files:
                    if not f.endswith(".swift"):
                        continue
                    path = os.path.join(folder, f)
                    with open(path) as text:
                        for n, line in enumerate(text, 1):
                            m = re.match(r"\s*(?:@testable\s+)?import\s+(\w+)", line)
                            if m and m.group(1) not in STANDARD and m.group(1) not in allowed:
                                self.fail("%s:%d imports %s, which %s may not (docs/development.md)%s"
                                          % (os.path.relpath(path, ROOT), n, m.group(1), name,
                                             "" if m.group(1) in ours else " or which is no module of ours"))


if __name__ == "__main__":
    unittest.main()


def swift_files(top):
    for folder, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith(".swift"):
                yield os.path.join(folder, f)


def lines_matching(pattern, outside):
    """(file, line number, text) of every line of Sources matching `pattern`, outside the folder `outside`."""
    found = []
    for path in swift_files(SOURCES):
        if path.startswith(os.path.join(SOURCES, outside) + os.sep):
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if re.search(pattern, line) and not line.strip().startswith("//"):
                    found.append((os.path.relpath(path, ROOT), n, line.strip()))
    return found


class CodeRulesTests(TestCase):
    """The redesign's rules for the code itself (docs/development.md): each names what broke it."""

    def test_descriptors_are_unwrapped_only_in_the_system_layer_or_for_a_c_library(self):
        # A descriptor handed to a C library that does the operation itself (uinput's ioctls through
        # libevdev); I/O of our own goes through FileDescriptor's read, write and writeAll.
        allowed = ("cevdev_uinput_set_phys(fd.rawValue", "libevdev_uinput_create_from_device(dev, fd.rawValue")
        found = [f for f in lines_matching(r"\b(fd|FD|Fd|socket|watched|listenFD|descriptor)\.rawValue\b", "TouchSystem")
                 if not any(a in f[2] for a in allowed)]
        self.assertEqual(found, [], "a descriptor's rawValue outside Sources/TouchSystem: use FileDescriptor's operations")

    def test_no_eintr_loop_outside_the_system_layer(self):
        # libevdev_next_event's -EINTR is libevdev's status of a read it made, not a loop of ours.
        found = [f for f in lines_matching(r"\bEINTR\b|\.interrupted\b", "TouchSystem") if "rc != -EINTR" not in f[2]]
        self.assertEqual(found, [], "an EINTR retry outside Sources/TouchSystem: FileDescriptor retries")

    def test_daemon_lines_are_told_apart_only_by_the_protocol_module(self):
        found = lines_matching(r'json\["event"\]|\["event"\]\?\.stringValue', "TouchProtocol")
        self.assertEqual(found, [], "a switch on a line's \"event\" outside TouchProtocol: use DaemonLine.event")

    def test_no_command_line_written_by_hand_outside_the_protocol_module(self):
        # (The scene line's own "scene" member, SceneLine.swift, is the daemon's line, not a command.)
        found = [f for f in lines_matching(r'key\("(set|subscribe|scene)"\)', "TouchProtocol") if not f[0].endswith("SceneLine.swift")]
        self.assertEqual(found, [], "a command's JSON written by hand: use ClientCommand(...).line")

    def test_no_source_file_over_450_lines(self):
        # A file that grows past a screenful of screens holds more than one concern: split it by concern.
        long = []
        for path in swift_files(SOURCES):
            with open(path) as f:
                n = sum(1 for _ in f)
            if n > 450:
                long.append((os.path.relpath(path, ROOT), n))
        self.assertEqual(long, [], "Swift files over 450 lines")


class WaylandProtocolTests(TestCase):
    """The wlr foreign toplevel protocol's C (Sources/CWlrToplevel) is wayland-scanner's, made from the
    vendored XML: the scanner makes it again here, and it must be the same but for the scanner's version
    line (`make wayland-protocols` writes it anew)."""

    @unittest.skipUnless(shutil.which("wayland-scanner"), "needs wayland-scanner (libwayland-bin; make test installs it)")
    def test_the_committed_protocol_code_is_what_the_scanner_makes_of_the_xml(self):
        base = os.path.join(ROOT, "Sources", "CWlrToplevel")
        xml = os.path.join(base, "protocol", "wlr-foreign-toplevel-management-unstable-v1.xml")
        for mode, name in (("client-header", "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"),
                           ("private-code", "wlr-foreign-toplevel-management-unstable-v1-protocol.c")):
            made = subprocess.run(["wayland-scanner", mode, xml, "/dev/stdout"], capture_output=True, text=True, check=True).stdout
            with open(os.path.join(base, name)) as f:
                committed = f.read()
            strip = lambda text: [l for l in text.splitlines() if not l.startswith("/* Generated by wayland-scanner")]
            self.assertEqual(strip(committed), strip(made), name + " differs from wayland-scanner's: run make wayland-protocols")
