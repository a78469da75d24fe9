package io.simdex.client.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table: a header row and data rows, each column as wide as its widest cell,
 * columns two spaces apart, the last column unpadded so lines carry no trailing blanks.
 */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    TextTable(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    /** Adds a row; cells are printed with {@link String#valueOf(Object)}. */
    TextTable row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("a row needs " + columns + " cells, got " + cells.length);
        }
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    void print(PrintWriter out) {
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder line = new StringBuilder();
        for (String[] row : rows) {
            line.setLength(0);
            for (int i = 0; i < columns - 1; i++) {
                line.append(row[i]).append(" ".repeat(widths[i] - row[i].length() + 2));
            }
            line.append(row[columns - 1]);
            out.println(line);
        }
    }
}
