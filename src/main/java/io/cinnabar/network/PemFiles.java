package io.cinnabar.network;

import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and private keys in the PEM files Redis users have, read with the JDK alone:
 * PKCS#8 keys (plain or encrypted, what OpenSSL 3 writes), and the "traditional" forms OpenSSL 1.x
 * writes and Redis's gen-test-certs.sh produced there ("RSA PRIVATE KEY", "EC PRIVATE KEY",
 * optionally encrypted with a Proc-Type/DEK-Info header), which neither the JDK nor Netty's
 * SslContextBuilder read without Bouncy Castle.
 */
final class PemFiles {
    private PemFiles() {}

    /** Why a file could not be used, in words for Redis's "Failed to load ...: reason" lines. */
    static final class PemException extends Exception {
        PemException(String message) {
            super(message);
        }
    }

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\r?\\n(.*?)-----END \\1-----", Pattern.DOTALL);

    private record Block(String type, Map<String, String> headers, byte[] der) {}

    /** Every certificate of a PEM file, in file order (a chain: the leaf first). */
    static List<X509Certificate> certificates(String file) throws PemException {
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block b : blocks(file)) {
                if (!b.type.equals("CERTIFICATE") && !b.type.equals("TRUSTED CERTIFICATE")) continue;
                out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der)));
            }
        } catch (GeneralSecurityException e) {
            throw new PemException("bad certificate: " + e.getMessage());
        }
        if (out.isEmpty()) throw new PemException("no certificate found (PEM routines::no start line)");
        return out;
    }

    /** The certificates of every readable file of a directory (tls-ca-cert-dir); files that hold none are skipped. */
    static List<X509Certificate> certificatesInDirectory(String dir) throws PemException {
        Path path = Path.of(dir);
        if (!Files.isDirectory(path)) throw new PemException("No such file or directory: " + dir);
        List<X509Certificate> out = new ArrayList<>();
        try (var files = Files.list(path)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                if (!Files.isRegularFile(f)) continue;
                try {
                    out.addAll(certificates(f.toString()));
                } catch (PemException e) {
                    // OpenSSL's CApath looks up files by hash and never reads the others either.
                }
            }
        } catch (IOException e) {
            throw new PemException(e.getMessage());
        }
        return out;
    }

    /** The first private key of a PEM file; password (may be null or empty) decrypts an encrypted one. */
    static PrivateKey privateKey(String file, String password) throws PemException {
        for (Block b : blocks(file)) {
            switch (b.type) {
                case "PRIVATE KEY":
                    return pkcs8(b.der);
                case "ENCRYPTED PRIVATE KEY":
                    return pkcs8(decryptPkcs8(b.der, password));
                case "RSA PRIVATE KEY":
                    return pkcs8(wrapRsa(traditional(b, password)));
                case "EC PRIVATE KEY":
                    return pkcs8(wrapEc(traditional(b, password)));
                default:
                    // EC PARAMETERS, certificates and the like may sit beside the key
            }
        }
        throw new PemException("no private key found (PEM routines::no start line)");
    }

    private static List<Block> blocks(String file) throws PemException {
        String text;
        try {
            text = Files.readString(Path.of(file), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new PemException("No such file or directory");
        } catch (IOException e) {
            throw new PemException(e.getMessage() == null ? e.toString() : e.getMessage());
        }
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            Map<String, String> headers = new HashMap<>();
            StringBuilder base64 = new StringBuilder();
            for (String line : m.group(2).split("\\r?\\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
                } else {
                    base64.append(line.trim());
                }
            }
            try {
                out.add(new Block(m.group(1), headers, Base64.getDecoder().decode(base64.toString())));
            } catch (IllegalArgumentException e) {
                throw new PemException("bad base64 decode (PEM routines::bad base64 decode)");
            }
        }
        return out;
    }

    private static PrivateKey pkcs8(byte[] der) throws PemException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next kind of key
            }
        }
        throw new PemException("unsupported or malformed private key");
    }

    private static byte[] decryptPkcs8(byte[] der, String password) throws PemException {
        if (password == null || password.isEmpty()) throw new PemException("bad decrypt (a password is needed)");
        try {
            EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            // PBES2 (OpenSSL 3's default) names its real cipher in the parameters, e.g. PBEWithHmacSHA256AndAES_256.
            String algorithm = info.getAlgName().equals("PBES2") || info.getAlgName().equals("1.2.840.113549.1.5.13")
                    ? info.getAlgParameters().toString() : info.getAlgName();
            SecretKeyFactory factory = SecretKeyFactory.getInstance(algorithm);
            Cipher cipher = Cipher.getInstance(algorithm);
            cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(new PBEKeySpec(password.toCharArray())),
                    info.getAlgParameters());
            return info.getKeySpec(cipher).getEncoded();
        } catch (GeneralSecurityException | IOException e) {
            throw new PemException("bad decrypt (" + e.getMessage() + ")");
        }
    }

    /** The DER of a traditional key block, decrypted per its DEK-Info header when it has one. */
    private static byte[] traditional(Block b, String password) throws PemException {
        String dek = b.headers.get("DEK-Info");
        if (dek == null) return b.der;
        if (password == null || password.isEmpty()) throw new PemException("bad decrypt (a password is needed)");
        String[] parts = dek.split(",");
        if (parts.length != 2) throw new PemException("bad DEK-Info header");
        String name = parts[0].trim().toUpperCase(Locale.ROOT);
        byte[] iv = java.util.HexFormat.of().parseHex(parts[1].trim());
        String transformation;
        String keyAlgorithm;
        int keyLength;
        switch (name) {
            case "AES-128-CBC" -> { transformation = "AES/CBC/PKCS5Padding"; keyAlgorithm = "AES"; keyLength = 16; }
            case "AES-192-CBC" -> { transformation = "AES/CBC/PKCS5Padding"; keyAlgorithm = "AES"; keyLength = 24; }
            case "AES-256-CBC" -> { transformation = "AES/CBC/PKCS5Padding"; keyAlgorithm = "AES"; keyLength = 32; }
            case "DES-EDE3-CBC" -> { transformation = "DESede/CBC/PKCS5Padding"; keyAlgorithm = "DESede"; keyLength = 24; }
            default -> throw new PemException("unsupported encryption " + name);
        }
        try {
            byte[] key = bytesToKey(password.getBytes(StandardCharsets.UTF_8), iv, keyLength);
            Cipher cipher = Cipher.getInstance(transformation);
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, keyAlgorithm), new IvParameterSpec(iv));
            return cipher.doFinal(b.der);
        } catch (GeneralSecurityException e) {
            throw new PemException("bad decrypt (" + e.getMessage() + ")");
        }
    }

    /** OpenSSL's EVP_BytesToKey with MD5 and one iteration, salted with the IV's first 8 bytes (legacy PEM). */
    private static byte[] bytesToKey(byte[] password, byte[] iv, int length) throws GeneralSecurityException {
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        ByteArrayOutputStream key = new ByteArrayOutputStream();
        byte[] previous = new byte[0];
        while (key.size() < length) {
            md5.update(previous);
            md5.update(password);
            md5.update(iv, 0, 8);
            previous = md5.digest();
            key.write(previous, 0, previous.length);
        }
        return java.util.Arrays.copyOf(key.toByteArray(), length);
    }

    private static final byte[] RSA_ALGORITHM = Der.sequence(Der.oid(1, 2, 840, 113549, 1, 1, 1), new byte[] {5, 0});
    private static final byte[] EC_PUBLIC_KEY_OID = Der.oid(1, 2, 840, 10045, 2, 1);

    /** PKCS#1 RSAPrivateKey into PKCS#8 PrivateKeyInfo. */
    private static byte[] wrapRsa(byte[] pkcs1) {
        return Der.sequence(new byte[] {2, 1, 0}, RSA_ALGORITHM, Der.tagged(0x04, pkcs1));
    }

    /** SEC1 ECPrivateKey into PKCS#8, naming the curve its [0] parameters name. */
    private static byte[] wrapEc(byte[] sec1) throws PemException {
        byte[] curve = Der.explicitTagContent(sec1, 0xA0);
        if (curve == null) throw new PemException("EC key without named curve parameters");
        return Der.sequence(new byte[] {2, 1, 0}, Der.sequence(EC_PUBLIC_KEY_OID, curve), Der.tagged(0x04, sec1));
    }

    /** The little DER the key wrapping needs. */
    static final class Der {
        private Der() {}

        static byte[] sequence(byte[]... parts) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (byte[] p : parts) body.write(p, 0, p.length);
            return tagged(0x30, body.toByteArray());
        }

        static byte[] tagged(int tag, byte[] content) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(tag);
            int n = content.length;
            if (n < 128) {
                out.write(n);
            } else {
                int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
                out.write(0x80 | bytes);
                for (int i = bytes - 1; i >= 0; i--) out.write(n >>> (8 * i));
            }
            out.write(content, 0, n);
            return out.toByteArray();
        }

        static byte[] oid(int... arcs) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.write(arcs[0] * 40 + arcs[1]);
            for (int i = 2; i < arcs.length; i++) {
                int v = arcs[i];
                int groups = 1;
                while ((v >>> (7 * groups)) != 0) groups++;
                for (int g = groups - 1; g >= 0; g--) body.write(((v >>> (7 * g)) & 0x7f) | (g > 0 ? 0x80 : 0));
            }
            return tagged(0x06, body.toByteArray());
        }

        /** The content of the element tagged tag directly inside the outer SEQUENCE of der, or null. */
        static byte[] explicitTagContent(byte[] der, int tag) {
            int[] outer = header(der, 0);
            if (outer == null) return null;
            int pos = outer[0];
            int end = Math.min(der.length, pos + outer[1]);
            while (pos < end) {
                int t = der[pos] & 0xff;
                int[] h = header(der, pos);
                if (h == null) return null;
                if (t == tag) return java.util.Arrays.copyOfRange(der, h[0], h[0] + h[1]);
                pos = h[0] + h[1];
            }
            return null;
        }

        /** {content offset, content length} of the element at pos, or null if malformed. */
        private static int[] header(byte[] der, int pos) {
            if (pos + 2 > der.length) return null;
            int len = der[pos + 1] & 0xff;
            int off = pos + 2;
            if (len >= 0x80) {
                int bytes = len & 0x7f;
                if (bytes == 0 || bytes > 4 || off + bytes > der.length) return null;
                len = 0;
                for (int i = 0; i < bytes; i++) len = (len << 8) | (der[off + i] & 0xff);
                off += bytes;
            }
            if (len < 0 || off + len > der.length) return null;
            return new int[] {off, len};
        }
    }
}
