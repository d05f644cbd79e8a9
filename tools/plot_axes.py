"""The frame the long-run plots share (tools/plot-ngram-log.py, plot-training-log.py, and
plot-ch39-run.py and plot-ch42-run.py through long_run.loss_figure).

axes() opens an SVG in currentColor only (it follows the book's light and dark themes) with
the two axes, a label under every x tick, y labels every `y_step` between lo and hi, and the
x axis' title; it returns the list of SVG pieces and the step -> x and value -> y maps.
"""

LEFT, TOP, WIDTH, HEIGHT = 60, 16, 480, 240


def axes(title, steps, last, lo, hi, y_step, x_label, right_margin):
    X = lambda s: LEFT + WIDTH * s / last  # noqa: E731
    Y = lambda v: TOP + HEIGHT * (hi - v) / (hi - lo)  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'font-family="sans-serif">' % (LEFT + WIDTH + right_margin, TOP + HEIGHT + 44, title),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="currentColor"/>' % (LEFT, TOP, LEFT, TOP + HEIGHT),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="currentColor"/>'
           % (LEFT, TOP + HEIGHT, LEFT + WIDTH, TOP + HEIGHT)]
    for s in steps:
        out.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="currentColor">%d</text>'
                   % (X(s), TOP + HEIGHT + 14, s))
    tick = round(lo, 1)
    while tick <= hi:
        if tick >= lo:
            out.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end" fill="currentColor">%.1f</text>'
                       % (LEFT - 6, Y(tick) + 3, tick))
        tick = round(tick + y_step, 1)
    out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="currentColor">%s</text>'
               % (LEFT + WIDTH / 2, TOP + HEIGHT + 32, x_label))
    return out, X, Y
