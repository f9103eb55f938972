package dev.counters.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script and its SHA-1, for EVALSHA. A script runs atomically on the server: nothing else runs between its
 * commands, which is what makes add-if-present and the load protocol's checks safe.
 *
 * @param name what it does, for messages
 * @param source the Lua source
 * @param sha1 its SHA-1 in lower-case hex, as Redis names cached scripts
 */
record Script(String name, String source, String sha1) {

    static Script of(String name, String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new Script(name, source, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-1", e);
        }
    }

    /** Whether {@code failure}, or any of its causes, is the server's NOSCRIPT reply to an EVALSHA. */
    static boolean isNoScript(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }
}
