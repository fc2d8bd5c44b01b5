package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the helper commands the throwaway servers need (install scripts, SQL clients, pg_ctl) with a time limit,
 * and turns a failure into an exception that carries the command's output, so a broken fixture explains itself.
 */
public final class ProcessRunner {
    private ProcessRunner() {
    }

    /** True when this JVM runs as root (then servers that refuse root run as their own system user). */
    public static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Runs a command to completion; returns its combined output; throws when it fails or overruns. */
    public static String run(List<String> command, long timeoutSeconds) {
        return run(command, null, timeoutSeconds);
    }

    /** Same, feeding {@code stdin} (may be null) to the command. */
    public static String run(List<String> command, String stdin, long timeoutSeconds) {
        Path out = null;
        try {
            out = Files.createTempFile("mucscale-cmd-", ".log");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.toFile());
            if (stdin == null) {
                pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            }
            Process p = pb.start();
            if (stdin != null) {
                try (var in = p.getOutputStream()) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out after " + timeoutSeconds + " s: " + String.join(" ", command)
                        + "\n" + Files.readString(out, StandardCharsets.UTF_8));
            }
            String output = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException("exit " + p.exitValue() + ": " + String.join(" ", command) + "\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a leftover log file in /tmp is harmless
                }
            }
        }
    }

    /** The command prefixed to run as {@code user} when we are root, else unchanged. */
    public static List<String> asUser(String user, List<String> command) {
        if (!runningAsRoot()) {
            return command;
        }
        List<String> full = new ArrayList<>(List.of("runuser", "-u", user, "--"));
        full.addAll(command);
        return full;
    }

    /** Deletes a directory tree; quiet about what is already gone. */
    public static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + root, e);
        }
    }

    /** Last {@code maxChars} characters of a log file, for error messages. */
    static String tail(Path file, int maxChars) {
        try {
            if (!Files.exists(file)) {
                return "(no " + file + ")";
            }
            String s = Files.readString(file, StandardCharsets.UTF_8);
            return s.length() <= maxChars ? s : s.substring(s.length() - maxChars);
        } catch (IOException e) {
            return "(unreadable " + file + ": " + e + ")";
        }
    }

    /** Waits until a TCP connect to 127.0.0.1:port succeeds, or the deadline passes. */
    static boolean waitForPort(int port, long deadlineNanos, java.util.function.BooleanSupplier stillAlive) {
        while (System.nanoTime() < deadlineNanos) {
            if (!stillAlive.getAsBoolean()) {
                return false;
            }
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 200);
                return true;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }
}
