package io.simdex.client.batch;

import java.time.temporal.ChronoUnit;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/** Progress as the CLI's terminal bar (the one {@code load} draws): a bar per phase, with rate. */
final class BarProgress implements Progress {
    private ProgressBar bar;

    @Override
    public void phase(String name, long total) {
        close();
        bar = new ProgressBarBuilder()
                .setTaskName(name)
                .setInitialMax(total)
                .setUnit(" docs", 1)
                .showSpeed()
                .setSpeedUnit(ChronoUnit.SECONDS)
                .setUpdateIntervalMillis(250)
                .build();
    }

    @Override
    public void step(long n) {
        if (bar != null) {
            bar.stepBy(n);
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }
}
