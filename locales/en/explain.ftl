# One plain line per question on what the device does, and what an observer of its report
# learns (src/explain.rs). Percentages arrive written with this language's decimal
# separator ("16.5"); "%" is written here.

## What the device does

# $truth: the chance of a truthful report.
plain-mirrored = Your device tells the truth { $truth } % of the time and the opposite otherwise.
# Forced response: $yes and $no are the chances of a forced Yes and a forced No.
plain-forced =
    Your device tells the truth { $truth } % of the time; otherwise it answers Yes
    ({ $yes } %) or No ({ $no } %) whatever your answer.
# Unrelated question: $yes is the chance of Yes in the random answer.
plain-unrelated =
    Your device tells the truth { $truth } % of the time; otherwise it answers Yes or No
    at random (Yes { $yes } % of the time), whatever your answer.
# Choice and ordinal questions.
plain-options =
    Your device reports the option you choose { $chosen } % of the time, and each other
    option { $other } % of the time.
# Number questions: $min and $max are the bounds.
plain-number =
    Your device rounds your number at random to { $min } or { $max } (the nearer end is
    likelier), then reports that end { $truth } % of the time and the other end
    otherwise.

## What someone who sees the report learns

# $prior: the prior assumed, "10"; $posterior: at most this percentage afterwards;
# $epsilon: the question's ε, "1.10".
observer-yes-no =
    Someone who thought there was a { $prior } % chance that your true answer is Yes
    would, after seeing a Yes report, think it at most { $posterior } %. (ε = { $epsilon })
# $option: the first option's label, as the researcher wrote it.
observer-option =
    Someone who thought there was a { $prior } % chance that your answer is “{ $option }”
    would, after seeing that option reported, think it at most { $posterior } %.
    (ε = { $epsilon })
observer-number =
    Someone who thought there was a { $prior } % chance that your number is { $max }
    rather than { $min } would, after seeing a report of { $max }, think it at most
    { $posterior } %. (ε = { $epsilon })

## A report in words (lists of sent and stored reports)

report-lower-end = the lower end ({ $value })
report-upper-end = the upper end ({ $value })
