package io.cinnabar.command;

/**
 * The server's clock when it is moved by hand (config {@code clock manual}, or a ManualClock
 * given to the embedded server): what CINNABAR CLOCK ADVANCE and SET move. Each move returns once
 * the server did what became due (see {@link ServerContext#clockMoved()}).
 */
public interface ClockControl {
    /** Moves the clock forward by ms (zero or more). */
    void advance(long ms);

    /** Sets the clock to unixMs. */
    void set(long unixMs);
}
