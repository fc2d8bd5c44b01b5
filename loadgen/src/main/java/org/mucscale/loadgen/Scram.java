package org.mucscale.loadgen;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * SCRAM-SHA-1 client side (RFC 5802), without channel binding ({@code n,,}). One instance per authentication;
 * used only on the login path, never per delivery.
 */
final class Scram {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String username;
    private final String password;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] expectedServerSignature;

    Scram(String username, String password) {
        this(username, password, newNonce());
    }

    Scram(String username, String password, String clientNonce) {
        this.username = username;
        this.password = password;
        this.clientNonce = clientNonce;
    }

    private static String newNonce() {
        byte[] n = new byte[18];
        RANDOM.nextBytes(n);
        return Base64.getEncoder().encodeToString(n).replace('=', 'A').replace(',', 'B');
    }

    /** The client-first message, e.g. {@code n,,n=user,r=nonce}. */
    String clientFirst() {
        clientFirstBare = "n=" + escape(username) + ",r=" + clientNonce;
        return "n,," + clientFirstBare;
    }

    /** Answers the server-first message with client-final (with proof); throws when the server's nonce is bad. */
    String clientFinal(String serverFirst) {
        String nonce = field(serverFirst, 'r');
        String salt = field(serverFirst, 's');
        String iterations = field(serverFirst, 'i');
        if (nonce == null || salt == null || iterations == null || !nonce.startsWith(clientNonce)) {
            throw new IllegalStateException("bad SCRAM server-first message: " + serverFirst);
        }
        int iterationCount;
        try {
            iterationCount = Integer.parseInt(iterations);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("bad SCRAM iteration count: " + iterations, e);
        }
        try {
            byte[] salted = hi(password, Base64.getDecoder().decode(salt), iterationCount);
            byte[] clientKey = hmac(salted, "Client Key");
            byte[] storedKey = MessageDigest.getInstance("SHA-1").digest(clientKey);
            String withoutProof = "c=biws,r=" + nonce;
            String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
            byte[] clientSignature = hmac(storedKey, authMessage);
            byte[] proof = new byte[clientKey.length];
            for (int i = 0; i < proof.length; i++) {
                proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
            }
            expectedServerSignature = hmac(hmac(salted, "Server Key"), authMessage);
            return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SCRAM-SHA-1 not available in this JDK", e);
        }
    }

    /** True when the server-final message ({@code v=...}) proves the server knew the password. */
    boolean verifyServerFinal(String serverFinal) {
        String v = field(serverFinal, 'v');
        return v != null && expectedServerSignature != null
                && MessageDigest.isEqual(Base64.getDecoder().decode(v), expectedServerSignature);
    }

    private static String field(String message, char name) {
        for (String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        return null;
    }

    private static String escape(String user) {
        return user.replace("=", "=3D").replace(",", "=2C");
    }

    private static byte[] hi(String password, byte[] salt, int iterations) throws GeneralSecurityException {
        SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA1");
        return f.generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 160)).getEncoded();
    }

    private static byte[] hmac(byte[] key, String text) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(key, "HmacSHA1"));
        return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    }
}
