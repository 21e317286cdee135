"""Mark the cells of a chapter's slide deck and write its speaker notes (CONTRIBUTING.md, "Slides").

    python -m book tag-slides chapters/03_sinusoidal.ipynb ...   # or no argument: every deck below

For each notebook in ``DECKS`` this gives every cell Jupyter's standard
``metadata.slideshow.slide_type``: the selected cells get the type named in the table, every
other cell ``skip``. After each selected cell that has a note it puts a markdown cell with
``slide_type: notes`` and the myst-nb tag ``remove-cell`` (speaker notes: in the deck's speaker
view and in RISE, never on the book page). Where a page cell is too long for a slide, the table
gives a compact slide-only cell (also ``remove-cell``) that takes its place in the deck. Notes
and slide-only cells from an earlier run are replaced, so the script can be rerun after a
chapter changes. Cells are found by their content (a heading, a
figure name, a piece of code), not by position, so cells added elsewhere do not matter; a
selection that finds no cell is an error. Each notebook is loaded, changed and saved in one go.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]

# match: "h:<start>" a markdown cell starting with <start>; "md:<text>" a markdown cell
# containing <text>; "fig:<name>" the code cell of figure <name>; "code:<text>" a code cell
# whose last statement contains <text>. Then the slide type, then the speaker notes (None: no
# notes cell), and optionally a slide-only cell: Markdown shown on the slide *instead of* the
# matched page cell (too long for a slide), kept off the page by the tag remove-cell.
Selection = list[tuple[str, str, str | None] | tuple[str, str, str | None, str]]

DECKS: dict[str, Selection] = {
    "chapters/01_why_position.ipynb": [
        (
            "h:# Why position matters",
            "slide",
            (
                "Open with the puzzle: attention has no idea where a word sits. By the end the room "
                "should be able to say why, and name the three places where position can enter."
            ),
        ),
        (
            "h:## Attention in one line",
            "slide",
            (
                "Write the formula on the board. Stress that the scores compare contents only: "
                "nothing in it knows the index $i$ or $j$."
            ),
        ),
        (
            "h:## Shuffling the words",
            "slide",
            (
                "The key identity: permute the inputs and attention permutes its outputs the same way. "
                "Derive it on the board in three lines: logits, softmax, values. Ask the room what a "
                "pooled output does under a shuffle (nothing changes)."
            ),
            (
                "### Shuffling the words shuffles the outputs\n\n"
                "For a permutation matrix $P$ ($PX$ is $X$ with its rows reordered, $P^\\top P = I$):\n\n"
                "$$\nA(PX) = P\\,A(X)\\,P^\\top, \\qquad Z(PX) = P\\,Z(X)\n$$\n\n"
                "- the logits become $PLP^\\top$, and a row-wise softmax ignores the order of a row "
                "{eq}`eq-why-attn-perm`;\n"
                "- **permutation equivariance** {eq}`eq-why-equivariance`: reorder the tokens and the "
                "outputs come out reordered the same way;\n"
                "- every layer of the stack acts per token or like attention, so the whole stack is "
                "equivariant, and a mean over the tokens is **invariant**."
            ),
        ),
        (
            "code:permutation_attention_figure()",
            "slide",
            (
                "Show the two attention maps: the second is the first with rows and columns shuffled. "
                "Same numbers, different places."
            ),
        ),
        (
            "h:## Adding positions breaks the symmetry",
            "slide",
            (
                "Adding a code per slot means shuffled words meet unshuffled codes, so the inputs are "
                "no longer a permutation of each other. That is the whole trick."
            ),
        ),
        (
            "md:Slots are not the only thing",
            "slide",
            (
                "A causal mask breaks the symmetry too: a decoder can count tokens. Keep this brief; "
                "chapter 10 comes back to it."
            ),
        ),
        (
            "h:## Where can position enter?",
            "slide",
            (
                "Three places: at the inputs (absolute), in the logits per pair (relative), or by "
                "rotating queries and keys (RoPE). This is the map of the whole book."
            ),
        ),
        (
            "code:attention_pipeline_figure()",
            "slide",
            (
                "Walk through the pipeline left to right and point at each place where a later chapter "
                "inserts position."
            ),
        ),
        (
            "code:permutation_explorer",
            "slide",
            (
                "Live demo: move the controls and watch the outputs move with the words. Ask: which "
                "setting makes the output change when you shuffle?"
            ),
        ),
        (
            "h:## Check yourself",
            "slide",
            "Give the room a minute per question, then open the answer.",
        ),
        (
            "h:## Summary",
            "slide",
            (
                "Recap the equivariance identity and the three entry points; next chapter tries the "
                "simplest possible code, the position itself."
            ),
        ),
    ],
    "chapters/02_numeric_encodings.ipynb": [
        (
            "h:# Naive numeric encodings",
            "slide",
            (
                "Three tempting first ideas, each failing in an instructive way. The failures build the "
                "checklist that the sinusoidal code will satisfy."
            ),
        ),
        (
            "h:## Attempt 1: the position itself",
            "slide",
            (
                "$PE(p) = p$ is unbounded: at position 500 it dwarfs a word embedding of size about 1. "
                "Ask what a model trained on 10 tokens does with 100."
            ),
        ),
        (
            "md:**Its range depends on the length.**",
            "subslide",
            (
                "The range seen in training is the range the model knows; longer inputs are out of "
                "distribution."
            ),
        ),
        (
            "h:## Attempt 2: the position as a fraction",
            "slide",
            (
                "Normalising fixes the range but makes the step depend on the length: 0.2 is two words "
                "in one sentence and twenty in another."
            ),
        ),
        (
            "h:## Attempt 3: one periodic function",
            "slide",
            (
                "A sine is bounded and length-free, but it repeats; the circle (sin and cos) removes "
                "mirror collisions but not the period."
            ),
        ),
        (
            "md:With $\\alpha = 1$ the sine alone confuses",
            "subslide",
            "Work one collision out loud: positions 1 and 2 under a lone sine.",
        ),
        (
            "code:naive_encodings_figure",
            "slide",
            (
                "Read the three rows top to bottom: short period, neighbours far apart but collisions; "
                "long period, no collisions but neighbours nearly equal."
            ),
        ),
        (
            "code:numeric_explorer",
            "slide",
            "Live: drag the period and watch the trade-off between collisions and resolution.",
        ),
        (
            "h:## What a good code needs",
            "slide",
            (
                "The checklist: bounded, length-independent, distinct codes, neighbours distinguishable. "
                "One frequency cannot do all four; several can."
            ),
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            (
                "Several periods at once resolve the trade-off: that is the sinusoidal encoding of the "
                "next chapter."
            ),
        ),
    ],
    "chapters/03_sinusoidal.ipynb": [
        (
            "h:# The sinusoidal encoding",
            "slide",
            (
                "The encoding of the original Transformer. The famous property: a shift by $k$ acts as "
                "a rotation that depends on $k$ alone. We derive it and check it numerically."
            ),
        ),
        (
            "h:## The formula",
            "slide",
            (
                "Write the definition; one sin/cos pair per frequency, frequencies falling "
                "geometrically. Mention the two layouts (interleaved and halves)."
            ),
        ),
        (
            "fig:fig-sin-heatmap",
            "slide",
            (
                "Rows are positions, columns channels. Left columns change fast, right ones barely "
                "move. The left looks like noise but each column is a sampled sinusoid."
            ),
        ),
        (
            "h:## Wavelengths from",
            "slide",
            "Wavelengths grow geometrically from $2\\pi$ to $2\\pi\\cdot$base.",
        ),
        (
            "fig:fig-sin-binary",
            "slide",
            (
                "The binary counter analogy: fast bits on the left, slow on the right. The sinusoid is "
                "a smooth version of it."
            ),
        ),
        (
            "h:## A shift is a rotation",
            "slide",
            (
                "The heart of the chapter. Use the addition formulas: each pair is rotated by "
                "$k\\omega_i$, so $PE(p+k) = M_k PE(p)$ with $M_k$ independent of $p$."
            ),
        ),
        (
            "h:## Similarity depends on distance",
            "slide",
            (
                "The dot product depends only on $k$ and is even in $k$: raw similarity sees distance, "
                "not direction."
            ),
        ),
        (
            "fig:fig-sin-dot",
            "slide",
            (
                "Markers from three starting positions all lie on the closed form. The floor comes from "
                "the slow pairs."
            ),
        ),
        (
            "h:## From the rotation to attention",
            "slide",
            (
                "With $W_Q = M_k$ a query looks $k$ steps ahead, and $M_{-k} \\ne M_k$, so attention can "
                "tell ahead from behind even though the raw dot product cannot."
            ),
        ),
        (
            "h:## Adding is concatenating",
            "slide",
            (
                "Adding equals concatenating and projecting with tied blocks. Brief: this answers the "
                "usual 'does adding not mix things up?' question."
            ),
        ),
        (
            "fig:fig-sin-precision",
            "slide",
            "Practical warning: float32 angles drift as $p\\cdot 2^{-24}$. Compute angles in float64.",
        ),
        (
            "code:sinusoidal_explorer",
            "slide",
            "Live: change dim, base and positions; watch the table and the dot-product curve.",
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "Rotation, distance-only similarity, float64. Next: a table the model learns instead.",
        ),
    ],
    "chapters/04_learned_absolute.ipynb": [
        (
            "h:# Learned absolute position embeddings",
            "slide",
            (
                "BERT, GPT-2 and ViT learn their position table. We ask how to initialise it, what it "
                "costs, and what it learns."
            ),
        ),
        (
            "h:## One trainable vector per position",
            "slide",
            (
                "One row per position, added to the token embedding; the gradient reaches only the rows "
                "of positions that occur."
            ),
        ),
        (
            "h:## Initialisation: zeros or small random",
            "slide",
            "Three conventions in use. Ask the room which they would pick and why.",
        ),
        (
            "h:## A toy task and a toy model",
            "slide",
            "The toy task needs order, so a model without positions cannot solve it.",
        ),
        (
            "h:## Why not zeros?",
            "slide",
            (
                "With zeros the model starts exactly permutation-equivariant, yet training still breaks "
                "the symmetry because the gradients differ per position."
            ),
        ),
        (
            "h:## What it costs",
            "slide",
            (
                "$N_{\\max}\\cdot d$ parameters: 393,216 for BERT-base. And nothing at all for "
                "position $N_{\\max}$."
            ),
        ),
        (
            "md:Three things to read off:",
            "slide",
            "Point at the dashed square: nearby positions became similar, but only approximately.",
        ),
        (
            "code:training_snapshots_explorer",
            "slide",
            "Live: step through training and watch the similarity structure appear.",
        ),
        (
            "h:## Does it matter? What the papers found",
            "slide",
            "On ViT the choice of position code matters little; having one matters about 3 points.",
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "Learned tables work at the trained lengths and stop there. Next: positions on a grid.",
        ),
    ],
    "chapters/05_absolute_2d.ipynb": [
        (
            "h:# 2-D absolute encodings",
            "slide",
            (
                "Images have two axes. The numbers are easy; the traps are in the channel order and in "
                "resizing."
            ),
        ),
        (
            "h:## Positions on a grid",
            "slide",
            "Half the channels for the row, half for the column.",
        ),
        (
            "code:sincos_2d_channels_figure",
            "slide",
            "Each channel depends on one coordinate only: stripes, horizontal or vertical.",
        ),
        (
            "h:### What the split does to similarity",
            "slide",
            "Similarity is the mean of a row term and a column term.",
        ),
        (
            "code:similarity_maps_figure",
            "slide",
            "The 'plus' shapes: a patch is similar to its row and its column.",
        ),
        (
            "h:## Same numbers, different order",
            "slide",
            (
                "MAE and the textbook agree on the numbers, not on the order. A checkpoint cannot "
                "switch layouts by changing one layer."
            ),
        ),
        (
            "code:layout_comparison_figure",
            "slide",
            "Compare the two layouts channel by channel: a fixed permutation.",
        ),
        (
            "h:## DETR's sine encoding of padded images",
            "slide",
            "DETR counts valid pixels from 1 and puts $y$ first.",
        ),
        (
            "code:detr_normalize_figure",
            "slide",
            "With normalize, positions are fractions of each image's valid extent.",
        ),
        (
            "h:## Changing the grid: resampling a table",
            "slide",
            (
                "Fine-tuning at a higher resolution needs a bigger table. A learned table has no "
                "formula, so it is resized like an image; three code bases use three filters. "
                "The sin/cos table lets us measure the error: there we know the right answer."
            ),
            (
                "### Changing the grid: resampling a table\n\n"
                "Pre-trained on 14 × 14 patches, fine-tuned on 16 × 16 or 24 × 24: the table has "
                "no rows for the new grid, so each channel is resized like an image.\n\n"
                "- ViT: linear (`scipy.ndimage.zoom(..., order=1)`); MAE: "
                '`F.interpolate(..., mode="bicubic")`; timm: the same with `antialias=True`, '
                "a different cubic;\n"
                "- with `align_corners=False`, new cell $o$ of an $h \\to h'$ resize reads the old "
                "grid at {eq}`eq-2d-stretch`\n\n"
                "$$\ns_o = \\Big(o + \\tfrac12\\Big)\\frac{h}{h'} - \\tfrac12\n$$\n\n"
                "- for a sin/cos table the perfect answer is the formula at $s_o$, so the error "
                "of each filter can be measured."
            ),
        ),
        (
            "code:resampling_figure",
            "slide",
            (
                "The error grows with the frequency of the channel. For the sin/cos table, evaluating "
                "the formula would be exact."
            ),
        ),
        ("code:absolute_2d_explorer", "slide", "Live: explore grid size and channel."),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "Split, order, padding, resizing. Next: relative positions inside attention.",
        ),
    ],
    "chapters/06_shaw_relative.ipynb": [
        (
            "h:# Relative positions inside attention",
            "slide",
            (
                "Shaw et al. move position from the inputs into attention itself: one learned vector per "
                "clipped offset."
            ),
        ),
        (
            "h:## Adding $a^K$ and $a^V$",
            "slide",
            (
                "Two terms: $a^K$ on the keys changes the logits, $a^V$ on the values changes the "
                "output. Both depend only on $j - i$."
            ),
        ),
        (
            "h:## Clipping",
            "slide",
            "Clipping to $[-k, k]$ leaves $2k+1$ vectors, independent of the sequence length.",
        ),
        (
            "code:shaw_index_explorer",
            "slide",
            "Live: change $n$ and $k$ and watch the clipped index fill the matrix.",
        ),
        (
            "h:## The matrix form, computed for real",
            "slide",
            "The naive $n\\times n\\times d$ tensor is never needed; this is the key engineering point.",
        ),
        (
            "h:### The skew",
            "slide",
            "The skew trick: a strided view of the $n\\times(2k+1)$ scores replaces the gather.",
        ),
        (
            "fig:fig-shaw-skew",
            "slide",
            "Follow one row of the view to see the diagonal become a column.",
        ),
        (
            "h:### Value term",
            "slide",
            "For the values, sum the weights per bucket, then multiply by the table.",
        ),
        ("h:## Memory and time", "slide", "Put numbers on the cost."),
        (
            "fig:fig-shaw-cost",
            "slide",
            "Memory drops from $O(n^2 d)$ to $O(n^2)$; blocking keeps the buffers near 4 MiB.",
        ),
        (
            "h:## What the paper found",
            "slide",
            (
                "Relative beats absolute on WMT 2014 in all four settings, $k \\ge 2$ suffices, and "
                "$a^K$ carries the benefit. Later designs keep only a logit term: ask why (fused "
                "attention kernels)."
            ),
            (
                "### What the paper found\n\n"
                "BLEU on newstest2014, $k = 16$ (Shaw et al., 2018, Table 1):\n\n"
                "| model | EN→DE absolute | EN→DE relative | EN→FR absolute | EN→FR relative |\n"
                "|---|---:|---:|---:|---:|\n"
                "| base | 26.5 | 26.8 | 38.2 | 38.7 |\n"
                "| big | 27.9 | 29.2 | 41.2 | 41.5 |\n\n"
                "- EN→DE development set (Tables 2 and 3): $k = 0$ gives 12.5 BLEU, the same as no "
                "relative vectors; from $k = 2$ on the score is flat (25.8–25.9).\n"
                "- $a^K$ alone 25.8, $a^V$ alone 25.3: the key term carries the benefit.\n"
                "- Later schemes (Music Transformer, T5, Swin, ALiBi) keep only a term on the logits, "
                "which a fused attention kernel can take; the value term does not fit one."
            ),
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "Shaw indexes by $j - i$, Swin by $i - j$: that sign is the bridge to the next chapter.",
        ),
    ],
    "chapters/07_swin_relative_bias.ipynb": [
        (
            "h:# Swin's 2-D relative position bias",
            "slide",
            (
                "Swin adds one learned number per head and 2-D offset to the logits. The index that "
                "reads the table is where implementations go wrong."
            ),
        ),
        ("h:## Attention inside windows", "slide", "Attention is computed inside windows only."),
        (
            "md:Inside one window of $N = W_h W_w$ tokens",
            "slide",
            "The bias $B$ is added to the logits, one table of $(2W_h-1)(2W_w-1)$ rows per head.",
        ),
        ("fig:fig-swin-coords", "slide", "Step 1: coordinates of the window, meshgrid with ij."),
        (
            "fig:fig-swin-offsets",
            "slide",
            "Step 2: offsets, query minus key. The sign convention matters later.",
        ),
        (
            "fig:fig-swin-radix",
            "slide",
            (
                "Steps 3 and 4: shift to digits and combine with radix $2W_w - 1$. Ask why not "
                "$2W_w - 2$."
            ),
        ),
        (
            "code:window_bias_explorer",
            "slide",
            "Live: pick a query and see which block of the table it reads, turned by 180 degrees.",
        ),
        (
            "fig:fig-swin-shift",
            "slide",
            (
                "The shifted window: the mask keeps the bias correct because allowed pairs keep their "
                "offsets."
            ),
        ),
        (
            "fig:fig-swin-meshgrid",
            "slide",
            "The hazard: meshgrid without indexing= works in PyTorch but not when ported to NumPy.",
        ),
        (
            "h:## Loading a Swin checkpoint",
            "slide",
            "posenc loads the official table unchanged and refuses a transposed index.",
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "Three checks test any index: relative, in range, official. Next: a third axis.",
        ),
    ],
    "chapters/08_video_cross_attention.ipynb": [
        (
            "h:# 3-D and cross-attention indices",
            "slide",
            (
                "From 2-D windows to video: frames become a third digit of the index, and queries and "
                "keys may come from different frames."
            ),
        ),
        (
            "h:## Frames as a third axis",
            "slide",
            "The frame digit gets place value $(2W_h-1)(2W_w-1)$; each frame offset owns a block.",
        ),
        ("fig:fig-vid-self", "slide", "Read the matrix in blocks, one per pair of frames."),
        (
            "h:## The general rule: a mixed-radix number",
            "slide",
            "Every window index is a mixed-radix number: one row per offset, in dictionary order.",
        ),
        (
            "h:## Queries and keys from different frames",
            "slide",
            (
                "RSTT's cross-attention puts its 4 key frames on the 7 query frames' time axis: input "
                "frame $m$ shows the moment of output frame $2m$. Everything else is the 3-D rule "
                "unchanged."
            ),
            (
                "### Queries and keys from different frames: RSTT\n\n"
                "RSTT turns 4 low-resolution frames into 7 high-resolution ones, with three window "
                "attentions, each with its own table: encoder self-attention ($4 \\to 4$ frames), "
                "decoder self-attention `attn1` ($7 \\to 7$) and decoder cross-attention `attn2` "
                "($7 \\to 4$).\n\n"
                "The new idea: key frame $m$ sits at time $s\\,m$ ($s = 2$) on the queries' time axis, "
                "so $\\Delta t = t - s\\,m$ and {eq}`eq-vid-general` applies unchanged:\n\n"
                "$$\nI = \\big(t - s\\,m + D_1 - 1\\big)(2W_h - 1)(2W_w - 1) "
                "+ \\big(\\Delta r + W_h - 1\\big)(2W_w - 1) + \\big(\\Delta c + W_w - 1\\big)\n$$\n\n"
                "- a table sized for $D_1$ frames: $13 \\cdot 7 \\cdot 7 = 637$ rows;\n"
                "- posenc: `relative_position_index((7, 4, 4), (4, 4, 4), key_step=(2, 1, 1))`."
            ),
        ),
        (
            "fig:fig-vid-cross",
            "slide",
            "The cross index is the self index with the odd key frames dropped; all 637 rows are used.",
        ),
        (
            "md:`attn1` and `attn2` have tables of the same size",
            "slide",
            (
                "RSTT's stride formula is right only for a few frame counts. Ask the room to find one "
                "where it fails."
            ),
        ),
        (
            "code:window_3d_explorer",
            "slide",
            "Live: frames against frames; watch which rows each pair reads.",
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "Mixed radix explains every window index. Next: rotary, ALiBi and T5.",
        ),
    ],
    "chapters/09_rotary_alibi_t5.ipynb": [
        (
            "h:# Rotary embeddings, ALiBi and bucketed biases",
            "slide",
            (
                "Three designs of today's language models, all acting inside attention: RoPE rotates, "
                "ALiBi and T5 add a bias. The last part connects them to the absolute encodings."
            ),
        ),
        (
            "h:## RoPE: rotate the queries and keys",
            "slide",
            (
                "Recall chapter 3: a shift is a rotation. RoPE applies that rotation itself, to the "
                "queries and keys of every layer, so the logit sees only the offset. Derive it in one "
                "line: $R_m^\\top R_n = R_{n-m}$."
            ),
            (
                "### RoPE: rotate the queries and keys\n\n"
                "Every layer turns each query and key by its own position, after the projections "
                "({eq}`eq-rope-def`, $\\theta_i = \\text{base}^{-2i/d}$):\n\n"
                "$$\n\\tilde q_m = R_m\\, q_m, \\qquad \\tilde k_n = R_n\\, k_n\n$$\n\n"
                "A rotation undone by a rotation is a rotation by the difference {eq}`eq-rope-relative`:\n\n"
                "$$\n\\tilde q_m^\\top \\tilde k_n = q_m^\\top R_m^\\top R_n\\, k_n = q_m^\\top R_{n-m}\\, k_n\n$$\n\n"
                "- the positions enter only through $n - m$, *multiplied* with the content;\n"
                "- nothing is added, the values are left alone, every layer rotates afresh."
            ),
        ),
        (
            "fig:fig-rope-rotation",
            "slide",
            (
                "One pair of channels: the query and the key turn by their own angles, and only the "
                "angle between them survives in the dot product."
            ),
        ),
        (
            "h:## Two ways to pair the channels",
            "slide",
            (
                "Interleaved pairs or halves: the same rotation on permuted channels. Weights trained "
                "for one layout break silently in the other."
            ),
        ),
        (
            "fig:fig-rope-conventions",
            "slide",
            (
                "The head built to attend 5 back works with its own pairing and scatters with the "
                "other. The pairing is part of the checkpoint."
            ),
        ),
        (
            "h:## The score against the distance",
            "slide",
            (
                "What decays is a bound, not every score. With $q = k = \\mathbf 1$ the score is "
                "chapter 3's dot product again; the slow pairs keep it up."
            ),
            (
                "### The score against the distance\n\n"
                "A key equal to the query, $r = n - m$ apart {eq}`eq-rope-score`:\n\n"
                "$$\ns(r) = \\langle q, R_r\\, q\\rangle = \\sum_{i} \\lVert q_{(i)}\\rVert^2 \\cos r\\theta_i\n$$\n\n"
                "- with $q = \\mathbf 1$ it is twice chapter 3's dot product of sinusoidal codes;\n"
                '- RoFormer\'s "long-term decay" is an upper bound on any logit {eq}`eq-rope-bound`, '
                "from a summation by parts; its mean falls with $r$."
            ),
        ),
        (
            "fig:fig-rope-decay",
            "slide",
            (
                "The logit against the offset, divided by the width; the shading is the range the "
                "fast pairs sweep. The bottom row shows why the base matters: ask which base a "
                "long-context model would want."
            ),
        ),
        (
            "code:rotary_explorer",
            "slide",
            "Live: change the base and the width and watch the score curve and its floor.",
        ),
        (
            "h:## ALiBi: a linear penalty on the logits",
            "slide",
            (
                "ALiBi adds $-m_h$ times the distance to the logits, one fixed slope per head, "
                "geometric across heads. No parameters, no maximum length."
            ),
        ),
        (
            "fig:fig-alibi-span",
            "slide",
            (
                "Each head looks a different distance: steep slopes are local, flat ones look far. "
                "Note that the causal bias needs the causal mask beside it."
            ),
        ),
        (
            "code:alibi_explorer",
            "slide",
            "Live: change the number of heads and the length; read how far each head looks.",
        ),
        (
            "h:## T5: learned biases in logarithmic buckets",
            "slide",
            (
                "T5 learns one scalar per head and bucket of offsets: exact for small offsets, "
                "logarithmic buckets further out, one last bucket for everything far."
            ),
        ),
        (
            "fig:fig-t5-buckets",
            "slide",
            (
                "Top: Shaw's clipped index for comparison. Bottom: T5's buckets, exact within 7, "
                "then wider and wider up to 91, then flat: Shaw's clipping on a log scale, with "
                "scalars instead of vectors."
            ),
        ),
        (
            "code:t5_explorer",
            "slide",
            "Live: change the number of buckets and the maximum distance.",
        ),
        (
            "md:## Four terms: from absolute to relative positions",
            "slide",
            (
                "The bridge from absolute to relative: expand one logit of an absolute encoding into "
                "four terms. Ask the room which term each scheme of this chapter keeps."
            ),
            (
                "### Four terms: from absolute to relative positions\n\n"
                "With inputs $x_i + p_i$ and $W = W_Q^\\top W_K$, one logit is four terms "
                "{eq}`eq-bridge-four`:\n\n"
                "$$\nq_i^\\top k_j = x_i^\\top W x_j + x_i^\\top W p_j + p_i^\\top W x_j + p_i^\\top W p_j\n$$\n\n"
                "- content–content, content–position, position–content, position–position;\n"
                "- the two middle terms tie content to *absolute* positions;\n"
                "- only the last can depend on $j - i$ alone, and only if the projections make it so."
            ),
        ),
        (
            "fig:fig-bridge-terms",
            "slide",
            (
                "Top: random projections, no term is a function of the offset (29 % for "
                "position–position). Bottom: with $W_Q = W_K = I$ the position–position term is "
                "chapter 3's dot product, share 1. The mixed terms stay near 0 either way."
            ),
        ),
        (
            "h:## Where each one enters",
            "slide",
            (
                "The comparison table: where each encoding enters, what it learns, and what happens "
                "beyond the training length. Defined there is not the same as working there: "
                "chapter 10 tests it."
            ),
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            (
                "RoPE multiplies, ALiBi and T5 add. Before chapter 10, ask the room to predict which "
                "encoding holds beyond the training length."
            ),
        ),
    ],
    "chapters/10_length_experiment.ipynb": [
        (
            "h:# Length generalisation",
            "slide",
            (
                "One experiment, seven encodings, trained at length 16 and tested at 16, 32 and 64. "
                "It runs in seconds, so the room can rerun it."
            ),
        ),
        (
            "h:## The task: copy the token two places back",
            "slide",
            (
                "The task is relative: copy the token two back. Every model starts from the same "
                "weights and the same stopping rule, so only the encoding differs. Point at the four "
                "plug-in points; each chapter of the book fills one."
            ),
            (
                "### The task: copy the token two places back\n\n"
                "$$\ny_p = x_{p-k}, \\qquad k = 2, \\quad p = k, \\dots, n - 1\n$$\n\n"
                "- random tokens from $V = 16$: a uniform guess is right 1 time in 16;\n"
                '- the rule is **relative** ("two back") and the answer lies in the past: a causal '
                "decoder;\n"
                "- `TinyTransformer`: 2 pre-LN layers, $d = 32$, 4 heads of 8 channels;\n"
                "- four plug-in points: added to the tokens {eq}`eq-length-additive`, a bias on the "
                "logits {eq}`eq-length-bias`, rotated $q$ and $k$ {eq}`eq-length-rope`, Shaw's vectors "
                "{eq}`eq-length-shaw`;\n"
                "- every model starts from the same shared weights; only the encoding's own "
                "parameters differ."
            ),
        ),
        (
            "fig:fig-length-accuracy",
            "slide",
            "Absolute encodings stop at $L$; Shaw and T5 hold; RoPE holds to $2L$.",
        ),
        ("md:Four groups stand out", "subslide", "Name the four groups before explaining them."),
        ("fig:fig-length-positions", "slide", "Per position: three different ways to fail."),
        (
            "md:The panels show three different ways to fail.",
            "subslide",
            "Unseen positions, unseen offsets, dilution. Relative encodings remove only the first.",
        ),
        (
            "code:length_results_explorer",
            "slide",
            "Live: switch encodings and lengths; read accuracy per position.",
        ),
        (
            "h:## What the papers claim",
            "slide",
            (
                "Compare the toy with the papers' claims: it agrees with Press et al. that ALiBi "
                "extrapolates better than rotary and sinusoidal positions, not that it beats T5's "
                "bias."
            ),
        ),
        (
            "fig:fig-length-rope-pairs",
            "slide",
            (
                "RoPE's fastest pair turns one radian per position and cannot tell offset 2 from "
                "$2 + 2\\pi m$."
            ),
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
        (
            "h:## Summary",
            "slide",
            "One seed, one toy: read the result as mechanisms, not as a ranking.",
        ),
    ],
    "appendix/which_encoding.ipynb": [
        (
            "h:# Appendix: which encoding when",
            "slide",
            "A map of the book: every encoding in one table, then how to choose.",
        ),
        ("h:## What each encoding is", "slide", "The catalogue in one table."),
        ("code:markdown_table(*overview_rows())", "-", None),
        (
            "md:How to read the columns:",
            "slide",
            "Walk through the columns once; the room will use them for the rest of the appendix.",
            (
                "### How to read the table\n\n"
                "- **Kind**: absolute (a code per position) or relative (a term per pair, from the "
                "offset); RoPE is in between.\n"
                "- **Enters at**: the input (added once), the logits (every pair, every layer), or "
                "the queries and keys (rotated). DETR adds its codes to $q$ and $k$ of every layer; "
                "only Shaw et al. also change the values.\n"
                "- **Dims**: a sequence (1-D), an image grid (2-D), a video (3-D).\n"
                "- **Used by**: the models that brought each design in (Transformer, BERT, GPT-2, "
                "ViT, MAE, DETR, Swin, RoFormer, T5, ALiBi, …)."
            ),
        ),
        (
            "md:**Parameters.**",
            "slide",
            "Only seven of the sixteen learn anything, and they grow with different things.",
        ),
        (
            "md:**Running longer.**",
            "slide",
            "Only the learned absolute tables refuse longer inputs; running is not working.",
        ),
        (
            "md:Every other encoding runs, but running",
            "slide",
            "What a longer input shows a trained model differs per family.",
        ),
        (
            "md:Whether a trained model is still *accurate*",
            "slide",
            "Accuracy past the training length is a question about training: chapter 10.",
        ),
        (
            "h:## How to choose",
            "slide",
            (
                "Ask the questions in order; no encoding is best everywhere. Let the room answer each "
                "question for a model they know."
            ),
            (
                "### How to choose (1/2)\n\n"
                "1. **Does order matter at all?** A set: no positions (equivariance is right). A "
                "causal decoder learns some order from its mask alone.\n"
                "2. **Never longer than in training?** A learned table or the sinusoid; avoid the raw "
                "or normalised index.\n"
                "3. **Longer at test time?** Not a learned table. Unseen codes or angles (sinusoid, "
                "RoPE), no resolution far away (Shaw's clip, T5's buckets), or a growing distance "
                "penalty (ALiBi).\n"
                "4. **Distances rather than positions?** A relative encoding: a learned bias per "
                "head and offset is cheapest; RoPE changes only $q$ and $k$."
            ),
        ),
        (
            "h:## How to choose",
            "slide",
            (
                "Images and video follow the same logic on grids. End on the budget: today the "
                "question is whether the encoding fits a fused attention kernel."
            ),
            (
                "### How to choose (2/2)\n\n"
                "5. **Images?** On a fixed grid a learned table is enough (ViT); when the grid "
                "changes, a formula (MAE's 2-D sin/cos, DETR's sine with `normalize`) or a resampled "
                "table; with windows, Swin's relative bias.\n"
                "6. **Video?** Time as a third axis of the window bias; for cross-attention, key "
                "frames at their true times (RSTT).\n"
                "7. **The budget?** Parameters rarely matter. What matters is a *fused* attention "
                "kernel: input encodings, RoPE, ALiBi and T5 (FlexAttention) fit; Shaw's value term "
                "does not.\n"
                "8. **A checkpoint** fixes every convention (channel order, RoPE's pairing): the other "
                "one loads without an error and scrambles positions."
            ),
        ),
        ("h:## Check yourself", "slide", "A minute per question, then reveal."),
    ],
}


# Compact slide-only versions of page cells too long for a slide: notebook -> match -> Markdown.
# The matched page cell is left out of the deck and this cell (tag remove-cell) takes its place.
COMPACT: dict[str, dict[str, str]] = {
    "chapters/01_why_position.ipynb": {
        "h:## Adding positions breaks the symmetry": (
            "### Adding positions breaks the symmetry\n\n"
            "Add a code per slot, $X + E$ (row $i$ of $E$ is $p_i$). A shuffle moves the words, "
            "not the slots:\n\n"
            "$$\nPX + E \\neq P\\,(X + E) \\quad \\text{unless } PE = E\n$$\n\n"
            "- $f(PX + E) = P\\,f(X + P^\\top E)$ {eq}`eq-why-broken-out`: the shuffled sentence "
            "acts like the original words with the codes shuffled the other way;\n"
            "- the outputs are the originals reordered only if the shuffle moves no word to a "
            "slot with a different code."
        ),
    },
    "chapters/02_numeric_encodings.ipynb": {
        "h:## Attempt 1: the position itself": (
            "### Attempt 1: the position itself\n\n"
            "$$\nPE(p) = p, \\qquad p = 0, 1, \\dots, T - 1\n$$\n\n"
            "- added to every channel {eq}`eq-num-index`, the code has norm $p\\sqrt d$ and a "
            "standard-normal word about $\\sqrt d$: position is about $p$ times louder than the "
            "word;\n"
            "- its range depends on the length: a model trained on 10 tokens has only seen "
            "codes 0 to 9."
        ),
        "h:## Attempt 2: the position as a fraction": (
            "### Attempt 2: the position as a fraction of the length\n\n"
            "$$\nPE(p) = \\frac{p}{T - 1} \\in [0, 1]\n$$\n\n"
            "- bounded {eq}`eq-num-normalized`, but the step between neighbours, $1/(T-1)$, "
            "depends on the length;\n"
            "- a difference of $0.2$ spans 2 words when $T = 11$ and 20 words when $T = 101$;\n"
            '- "the previous word" is a different number in every sentence.'
        ),
        "h:## Attempt 3: one periodic function": (
            "### Attempt 3: one periodic function\n\n"
            "$$\nPE(p) = \\sin(p/\\alpha) \\qquad \\text{or} \\qquad "
            "PE(p) = \\big(\\sin(p/\\alpha),\\ \\cos(p/\\alpha)\\big)\n$$\n\n"
            "- bounded *and* independent of the length, with period $2\\pi\\alpha$ positions "
            "({eq}`eq-num-sine`, {eq}`eq-num-circle`);\n"
            "- a lone sine collides inside a period too: $\\sin x = \\sin(\\pi - x)$;\n"
            "- the circle removes those mirror collisions, not the periodic ones: after one turn "
            "the codes come back."
        ),
    },
    "chapters/03_sinusoidal.ipynb": {
        "h:## Wavelengths from": (
            "### Wavelengths from $2\\pi$ to $2\\pi\\cdot$base\n\n"
            "$$\n\\lambda_i = \\frac{2\\pi}{\\omega_i} = 2\\pi \\cdot \\text{base}^{2i/d}, \\qquad "
            "\\frac{\\lambda_{i+1}}{\\lambda_i} = \\text{base}^{2/d}\n$$\n\n"
            "- a geometric progression {eq}`eq-sin-wavelength`: a straight line on a log axis, "
            "from $2\\pi$ towards $2\\pi\\cdot$base;\n"
            "- the paper's reason: $PE(p+k)$ is a linear function of $PE(p)$ (next slides);\n"
            '- a learned table gave "nearly identical results"; the sinusoid was kept because '
            'it "may allow the model to extrapolate" (chapter 10 tests it).'
        ),
        "h:## A shift is a rotation": (
            "### A shift is a rotation\n\n"
            "The addition formulas, per pair {eq}`eq-sin-rotation`:\n\n"
            "$$\n\\begin{pmatrix} \\sin (p+k)\\omega_i \\\\ \\cos (p+k)\\omega_i \\end{pmatrix}\n"
            "= \\begin{pmatrix} \\cos k\\omega_i & \\sin k\\omega_i \\\\ "
            "-\\sin k\\omega_i & \\cos k\\omega_i \\end{pmatrix}\n"
            "\\begin{pmatrix} \\sin p\\omega_i \\\\ \\cos p\\omega_i \\end{pmatrix}\n$$\n\n"
            "- the matrix turns by $k\\omega_i$, and $p$ appears nowhere in it;\n"
            "- one $2 \\times 2$ block per pair gives $M_k$ with $PE(p + k) = M_k\\, PE(p)$ for "
            "every $p$ {eq}`eq-sin-shift`;\n"
            "- `sinusoidal_shift_matrix(k, d)` builds $M_k$."
        ),
        "h:## Adding is concatenating": (
            "### Adding is concatenating, then projecting\n\n"
            "$$\n\\begin{pmatrix} W_x & W_p \\end{pmatrix} "
            "\\begin{pmatrix} x \\\\ PE(p) \\end{pmatrix} = W_x x + W_p\\, PE(p), \\qquad "
            "W (x + PE(p)) = \\begin{pmatrix} W & W \\end{pmatrix} "
            "\\begin{pmatrix} x \\\\ PE(p) \\end{pmatrix}\n$$\n\n"
            "- for a projection, adding is concatenating with tied blocks {eq}`eq-sin-concat`, "
            "at no extra width;\n"
            "- on the residual stream the sum travels on in the same channels: there token and "
            "position are mixed, and the model keeps them in different directions."
        ),
    },
    "chapters/04_learned_absolute.ipynb": {
        "h:## A toy task and a toy model": (
            "### A toy task and a toy model\n\n"
            "$$\ny_p = \\max_{|q - p| \\le 2} x_q, \\qquad x_q \\in \\{0, \\dots, 15\\}\n$$\n\n"
            '- `"local_max"` {eq}`eq-learned-task`: a bag of tokens cannot say which are near '
            '$p$, so the model must learn "near" in its position table;\n'
            "- `TinyTransformer`: 16 tokens, width $d = 32$, one block with two heads, a 16-way "
            "classifier at each position, trained with Adam on fresh random batches;\n"
            "- yardsticks: a uniform guess has loss $\\ln 16 \\approx 2.77$; answering $x_p$ "
            "itself is right about a quarter of the time."
        ),
    },
    "chapters/05_absolute_2d.ipynb": {
        "h:## Positions on a grid": (
            "### Positions on a grid\n\n"
            "Raster order (token $n = rW + c$) hides the neighbours: the patch below is $W$ "
            "steps away. Split the channels between the coordinates {eq}`eq-2d-split`:\n\n"
            "$$\nPE(r, c) = \\big[\\, PE_{1D}(r) \\,\\big\\|\\, PE_{1D}(c) \\,\\big] "
            "\\in \\mathbb{R}^{d}, \\qquad \\omega_i = 10000^{-4i/d}\n$$\n\n"
            "- both axes get the same number of channels and the same frequencies;\n"
            "- each axis has $d/4$ sin/cos pairs, so $d$ must be a multiple of 4;\n"
            "- `sinusoidal_encoding_2d` returns one row per grid position, in raster order."
        ),
        "h:## DETR's sine encoding of padded images": (
            "### DETR's sine encoding of padded images\n\n"
            "Positions count the valid pixels of the mask {eq}`eq-2d-detr`:\n\n"
            "$$\ny_{r,c} = \\sum_{r' \\le r} [\\text{valid}_{r',c}], \\qquad "
            "PE_y(2i) = \\sin\\Big(\\frac{y}{T^{2i/F}}\\Big), \\quad "
            "PE_y(2i+1) = \\cos\\Big(\\frac{y}{T^{2i/F}}\\Big)\n$$\n\n"
            "- the counts start at **1**, and the output stacks the **$y$ channels first**;\n"
            '- $F$ is `num_pos_feats` and $T$ the base, DETR\'s "temperature": the same '
            "frequencies as before;\n"
            "- DETR builds it with $F = 128$ and `normalize=True`; Hugging Face's mask means the "
            "opposite (1 = valid)."
        ),
    },
    "chapters/06_shaw_relative.ipynb": {
        "h:## Adding $a^K$ and $a^V$": (
            "### Adding $a^K$ and $a^V$\n\n"
            "$$\ne_{ij} = \\frac{q_i \\cdot k_j}{\\sqrt d} + \\frac{q_i \\cdot a^K_{ij}}{\\sqrt d}, "
            "\\qquad z_i = \\sum_j \\alpha_{ij} v_j + \\sum_j \\alpha_{ij}\\, a^V_{ij}\n$$\n\n"
            "- the key term {eq}`eq-shaw-logits` is a bias on the logits that depends on the "
            "query's content: how much query $i$ likes offset $j - i$;\n"
            "- the value term {eq}`eq-shaw-values` tells the output where its attention went;\n"
            "- vectors that depend on $j - i$ only break the symmetry of chapter 1 on purpose."
        ),
        "h:## Clipping": (
            "### Clipping: $2k+1$ vectors are enough\n\n"
            "$$\na^K_{ij} = w^K_{\\operatorname{clip}(j - i,\\, -k,\\, k)}, \\qquad "
            "I_{ij} = \\operatorname{clip}(j - i, -k, k) + k \\in \\{0, \\dots, 2k\\}\n$$\n\n"
            "- two tables of $2k + 1$ vectors ({eq}`eq-shaw-clip`, {eq}`eq-shaw-index`): exact "
            'offsets inside $\\pm(k-1)$, then "far left" and "far right";\n'
            "- the tables do not depend on the sequence length;\n"
            "- `shaw_relative_index(n_q, n_k, k)` returns $I$."
        ),
    },
    "chapters/07_swin_relative_bias.ipynb": {
        "md:Inside one window of $N = W_h W_w$ tokens": (
            "### A bias inside each window\n\n"
            "$$\n\\operatorname{Attention}(Q, K, V) = \\operatorname{softmax}\\Big("
            "\\frac{QK^\\top}{\\sqrt d} + B\\Big)\\, V\n$$\n\n"
            "- one $B \\in \\mathbb{R}^{N \\times N}$ per head, $N = W_h W_w$ "
            "{eq}`eq-swin-attention`; $B_{ij}$ depends only on where key $j$ sits relative to "
            "query $i$;\n"
            "- only $(2W_h - 1)(2W_w - 1)$ offsets (169 for $7 \\times 7$): a table of that many "
            "rows and $H$ columns, no clipping;\n"
            "- the *relative position index* $I$ gives each pair its row; the chapter follows a "
            "$3 \\times 4$ window."
        ),
    },
    "chapters/08_video_cross_attention.ipynb": {
        "h:## Frames as a third axis": (
            "### Frames as a third axis\n\n"
            "$$\nI_{ij} = \\big(\\Delta t + D - 1\\big)(2W_h - 1)(2W_w - 1) + "
            "\\big(\\Delta r + W_h - 1\\big)(2W_w - 1) + \\big(\\Delta c + W_w - 1\\big)\n$$\n\n"
            "- offsets are query minus key on three axes; the last two terms are chapter 7's "
            "2-D index {eq}`eq-vid-index3d`;\n"
            "- the frame digit is multiplied by everything the smaller digits can count, like "
            "the days of a clock;\n"
            "- the table has $(2D - 1)(2W_h - 1)(2W_w - 1)$ rows."
        ),
        "h:## The general rule: a mixed-radix number": (
            "### The general rule: a mixed-radix number\n\n"
            "$$\nI_{ij} = \\sum_a \\big(q_a - k_a + Q_a - 1\\big) \\prod_{b > a} "
            "\\big(2Q_b - 1\\big)\n$$\n\n"
            "- the digit of axis $a$ lies in $0 \\dots 2Q_a - 2$; its place value is the "
            "product of the later radices {eq}`eq-vid-general`;\n"
            "- no digit spills over: equal index exactly when equal offsets, one row per "
            "offset;\n"
            "- one axis: chapter 6's index turned around; two: chapter 7's; three: Video Swin's."
        ),
    },
    "chapters/09_rotary_alibi_t5.ipynb": {
        "h:## ALiBi: a linear penalty on the logits": (
            "### ALiBi: a linear penalty on the logits\n\n"
            "$$\n\\operatorname{softmax}_j\\Big(\\frac{q_i \\cdot k_j}{\\sqrt d} - m_h\\,(i - j)"
            "\\Big), \\quad j \\le i, \\qquad m_h = 2^{-8h/H}\n$$\n\n"
            "- in every layer, nothing learned {eq}`eq-alibi-bias`; geometric slopes "
            "{eq}`eq-alibi-slopes`, $1/2, 1/4, \\dots, 1/256$ for 8 heads;\n"
            "- other head counts: the slopes of the largest power of two below, then every "
            "other slope of twice as many heads;\n"
            "- the first head is steep and sees little beyond its neighbours; the last is "
            "nearly flat."
        ),
        "h:## T5: learned biases in logarithmic buckets": (
            "### T5: learned biases in logarithmic buckets\n\n"
            "$$\n\\operatorname{softmax}_j\\big(q_i \\cdot k_j + "
            "b_h[\\operatorname{bucket}(j - i)]\\big)\n$$\n\n"
            "- one learned number per head and bucket of offsets {eq}`eq-t5-bias` (no "
            "$1/\\sqrt d$: the initialisation takes care of the scale);\n"
            "- $E = B/2$ exact buckets for $r < E$, then logarithmically wider ones up to "
            "`max_distance` {eq}`eq-t5-bucket`;\n"
            "- an encoder splits 32 buckets into before and after the query; a decoder uses all "
            "32 for the past."
        ),
    },
}


OBJECTIVES = "```{admonition} Learning objectives"
"""A chapter's objectives: a markdown cell of their own, which every deck shows as its second slide
(after the title and the opening paragraph, which fill a slide at a lecture hall's text size)."""


OBJECTIVES_NOTE = (
    "Read the objectives out and say which part of the lecture meets each one. Come back to this "
    "slide at the end and ask the room which of them they can now do."
)


def _source(cell: nbformat.NotebookNode) -> str:
    return cell.source if isinstance(cell.source, str) else "".join(cell.source)


def _is_deck_only(cell: nbformat.NotebookNode, texts: set[str]) -> bool:
    """A notes or slide-only cell this script made (its id, or its text if a round trip
    through jupytext renumbered the ids): markdown kept off the page, rewritten on each run."""
    return (
        cell.cell_type == "markdown"
        and (str(cell.get("id", "")).startswith(("notes-", "slide-")) or _source(cell) in texts)
        and "slide_type" in cell.metadata.get("slideshow", {})
        and "remove-cell" in cell.metadata.get("tags", [])
    )


def _deck_cell(text: str, kind: str, key: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(
        text, metadata={"slideshow": {"slide_type": kind}, "tags": ["remove-cell"]}
    )
    cell["id"] = (
        f"{'notes' if kind == 'notes' else 'slide'}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"
    )
    return cell


def _matches(cell: nbformat.NotebookNode, match: str) -> bool:
    kind, _, text = match.partition(":")
    source = _source(cell)
    if kind == "h":
        return cell.cell_type == "markdown" and source.lstrip().startswith(text)
    if kind == "md":
        return cell.cell_type == "markdown" and text in source
    if kind == "fig":
        return cell.metadata.get("mystnb", {}).get("figure", {}).get("name") == text
    if kind == "code":  # the code of the cell's last statement (what it shows)
        lines = [
            line
            for line in source.splitlines()
            if line.strip() and not line.startswith(" ") and line.strip(")]} ")
        ]
        return cell.cell_type == "code" and bool(lines) and text in lines[-1]
    raise ValueError(f"unknown match kind in {match!r}")


def tag(path: Path, selection: Selection, compact: dict[str, str] | None = None) -> int:
    """Tag one notebook (load, change, save in one go); return the number of slides.

    ``compact`` maps a match of ``selection`` to a slide-only cell that replaces it in the deck.
    """
    compact = compact or {}
    selection = [
        (match, kind, note, compact[match])
        if match in compact and len(rest) == 0
        else (match, kind, note, *rest)
        for match, kind, note, *rest in selection
    ]
    nb = nbformat.read(path, as_version=4)
    texts = {text for entry in selection for text in entry[2:] if text}
    cells = [c for c in nb.cells if not _is_deck_only(c, texts)]
    for cell in cells:
        cell.metadata.setdefault("slideshow", {})["slide_type"] = "skip"
        if cell.cell_type == "markdown" and _source(cell).startswith(OBJECTIVES):
            cell.metadata["slideshow"]["slide_type"] = "slide"  # every deck: a slide of its own
    extra: dict[int, list[nbformat.NotebookNode]] = {}
    for match, kind, note, *slide_only in selection:
        found = [i for i, c in enumerate(cells) if _matches(c, match)]
        if not found:
            raise LookupError(f"{path}: no cell matches {match!r}")
        i = found[0]
        key = f"{cells[i].get('id', i)}{match}"
        if slide_only:  # the page cell stays skipped; a compact slide follows it
            extra.setdefault(i, []).append(_deck_cell(slide_only[0], kind, key + slide_only[0]))
        else:
            cells[i].metadata["slideshow"]["slide_type"] = kind
        if note:
            extra.setdefault(i, []).append(_deck_cell(note, "notes", key + note))
    for i, cell in enumerate(cells):
        if cell.metadata["slideshow"]["slide_type"] == "slide" and _source(cell).startswith(
            OBJECTIVES
        ):
            extra.setdefault(i, []).append(_deck_cell(OBJECTIVES_NOTE, "notes", OBJECTIVES))
    out = []
    for i, cell in enumerate(cells):
        out.append(cell)
        out.extend(extra.get(i, []))
    nb.cells = out
    nbformat.write(nb, path)
    return sum(c.metadata["slideshow"]["slide_type"] in ("slide", "subslide") for c in out)


def main(argv: list[str]) -> int:
    names = argv[1:] or list(DECKS)
    for name in names:
        key = str(Path(name).resolve().relative_to(ROOT))
        print(f"{key}: {tag(ROOT / key, DECKS[key], COMPACT.get(key))} slides")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
