package io.cinnabar.command.server;

import io.cinnabar.Version;
import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;

import java.util.concurrent.ThreadLocalRandom;

/**
 * LOLWUT VERSION 5 and 6, ported from Redis's lolwut5.c and lolwut6.c: Georg Nees's "Schotter"
 * in Braille characters and a skyline in ANSI colours, random each time as in Redis.
 */
final class LolwutArt {
    /**
     * Redis allocates any canvas its clamped arguments ask for (up to 800 MB); past this many
     * pixels Cinnabar refuses instead, so one call cannot exhaust the heap.
     */
    private static final long MAX_PIXELS = 1L << 26;

    private LolwutArt() {}

    /** A grid of colours; drawing outside it is ignored (Redis's lwCanvas). */
    private static final class Canvas {
        final int width, height;
        final byte[] pixels;

        Canvas(int width, int height, int background) {
            if ((long) width * height > MAX_PIXELS) throw new CommandError("ERR LOLWUT canvas too large");
            this.width = width;
            this.height = height;
            this.pixels = new byte[width * height];
            java.util.Arrays.fill(pixels, (byte) background);
        }

        void set(int x, int y, int color) {
            if (x < 0 || x >= width || y < 0 || y >= height) return;
            pixels[x + y * width] = (byte) color;
        }

        int get(int x, int y) {
            if (x < 0 || x >= width || y < 0 || y >= height) return 0;
            return pixels[x + y * width];
        }

        /** Bresenham's line. */
        void line(int x1, int y1, int x2, int y2, int color) {
            int dx = Math.abs(x2 - x1), dy = Math.abs(y2 - y1);
            int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
            int err = dx - dy;
            while (true) {
                set(x1, y1, color);
                if (x1 == x2 && y1 == y2) break;
                int e2 = err * 2;
                if (e2 > -dy) {
                    err -= dy;
                    x1 += sx;
                }
                if (e2 < dx) {
                    err += dx;
                    y1 += sy;
                }
            }
        }

        /** A square centred on x,y, rotated by angle: its corners lie on a circle. */
        void square(int x, int y, float size, float angle, int color) {
            int[] px = new int[4], py = new int[4];
            size = (float) Math.round(size / 1.4142135623);
            float k = (float) (Math.PI / 4 + angle);
            for (int j = 0; j < 4; j++) {
                px[j] = (int) Math.round(Math.sin(k) * size + x);
                py[j] = (int) Math.round(Math.cos(k) * size + y);
                k += (float) (Math.PI / 2);
            }
            for (int j = 0; j < 4; j++) line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], color);
        }
    }

    /** Redis's getLongFromObjectOrReply for argument i when present, else the default. */
    private static long optionalLong(Call c, int i, long dflt) {
        return i < c.argCount() ? c.longArg(i) : dflt;
    }

    private static long clamp(long v, long max) {
        return Math.max(1, Math.min(max, v));
    }

    /** LOLWUT VERSION 5 [columns [squares-per-row [squares-per-column]]] */
    static String schotter(Call c, int first) {
        int cols = (int) clamp(optionalLong(c, first, 66), 1000);
        int perRow = (int) clamp(optionalLong(c, first + 1, 8), 200);
        int perCol = (int) clamp(optionalLong(c, first + 2, 12), 200);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int width = cols * 2;
        int padding = width > 4 ? 2 : 0;
        float side = (float) (width - padding * 2) / perRow;
        Canvas canvas = new Canvas(width, (int) (side * perCol + padding * 2), 0);
        for (int y = 0; y < perCol; y++) {
            for (int x = 0; x < perRow; x++) {
                int sx = (int) (x * side + side / 2 + padding);
                int sy = (int) (y * side + side / 2 + padding);
                // Lower rows are rotated and moved more and more at random.
                float angle = 0;
                if (y > 1) {
                    float r1 = random.nextFloat() / perCol * y, r2 = random.nextFloat() / perCol * y, r3 = random.nextFloat() / perCol * y;
                    if (random.nextBoolean()) r1 = -r1;
                    if (random.nextBoolean()) r2 = -r2;
                    if (random.nextBoolean()) r3 = -r3;
                    angle = r1;
                    sx = (int) (sx + r2 * side / 3);
                    sy = (int) (sy + r3 * side / 3);
                }
                canvas.square(sx, sy, side, angle, 1);
            }
        }
        StringBuilder text = new StringBuilder();
        // Each character is a Braille cell of 2x4 pixels.
        for (int y = 0; y < canvas.height; y += 4) {
            for (int x = 0; x < canvas.width; x += 2) {
                int bits = 0;
                if (canvas.get(x, y) != 0) bits |= 1;
                if (canvas.get(x, y + 1) != 0) bits |= 1 << 1;
                if (canvas.get(x, y + 2) != 0) bits |= 1 << 2;
                if (canvas.get(x + 1, y) != 0) bits |= 1 << 3;
                if (canvas.get(x + 1, y + 1) != 0) bits |= 1 << 4;
                if (canvas.get(x + 1, y + 2) != 0) bits |= 1 << 5;
                if (canvas.get(x, y + 3) != 0) bits |= 1 << 6;
                if (canvas.get(x + 1, y + 3) != 0) bits |= 1 << 7;
                text.append((char) (0x2800 + bits));
            }
            if (y != canvas.height - 1) text.append('\n');
        }
        return text.append("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ")
                .append(Version.REDIS_VERSION).append('\n').toString();
    }

    /** LOLWUT VERSION 6 [columns [rows]] */
    static String skyscrapers(Call c, int first) {
        int cols = (int) clamp(optionalLong(c, first, 80), 1000);
        int rows = (int) clamp(optionalLong(c, first + 1, 20), 1000);
        Canvas canvas = new Canvas(cols, rows, 3);
        skyline(canvas, ThreadLocalRandom.current());
        StringBuilder text = new StringBuilder();
        for (int y = 0; y < canvas.height; y++) {
            for (int x = 0; x < canvas.width; x++) {
                // Foreground and background both, for the same look on every terminal.
                String escape = switch (canvas.get(x, y)) {
                    case 1 -> "0;90;100m";
                    case 2 -> "0;37;47m";
                    case 3 -> "0;97;107m";
                    default -> "0;30;40m";
                };
                text.append("\033[").append(escape).append(" \033[0m");
            }
            if (y != canvas.height - 1) text.append('\n');
        }
        return text.append("\nDedicated to the 8 bit game developers of past and present.\n")
                .append("Original 8 bit image from Plaguemon by hikikomori. Redis ver. ")
                .append(Version.REDIS_VERSION).append('\n').toString();
    }

    private static void skyline(Canvas canvas, ThreadLocalRandom random) {
        // Two passes of windowless buildings, the lighter ones behind.
        for (int color = 2; color >= 1; color--) {
            for (int offset = -10; offset < canvas.width; ) {
                offset += random.nextInt(8);
                int width = 10 + random.nextInt(9);
                int height = canvas.height / 2 + (color == 2 ? random.nextInt(canvas.height) / 2 : random.nextInt(canvas.height) / 3);
                skyscraper(canvas, random, offset, width, height, false, color);
                offset += color == 2 ? width / 2 : width + 1;
            }
        }
        for (int offset = -10; offset < canvas.width; ) {
            offset += random.nextInt(8);
            int width = 5 + random.nextInt(14);
            if (width % 4 != 0) width += width % 3;
            int height = canvas.height / 3 + random.nextInt(canvas.height) / 2;
            skyscraper(canvas, random, offset, width, height, true, 0);
            offset += width + 5;
        }
    }

    private static void skyscraper(Canvas canvas, ThreadLocalRandom random, int xoff, int width, int height, boolean windows, int base) {
        int starty = canvas.height - 1;
        int endy = starty - height + 1;
        for (int y = starty; y >= endy; y--) {
            for (int x = xoff; x < xoff + width; x++) {
                // The roof is four pixels narrower.
                if (y == endy && (x <= xoff + 1 || x >= xoff + width - 2)) continue;
                int color = base;
                if (windows && x > xoff + 1 && x < xoff + width - 2 && y > endy + 1 && y < starty - 1) {
                    int relx = x - (xoff + 1), rely = y - (endy + 1);
                    // Windows two pixels wide and one tall: terminal cells are not square.
                    if ((relx / 2) % 2 != 0 && rely % 2 != 0) {
                        do {
                            color = 1 + random.nextInt(2);
                        } while (color == base);
                        if (relx % 2 != 0) color = canvas.get(x - 1, y);
                    }
                }
                canvas.set(x, y, color);
            }
        }
    }
}
