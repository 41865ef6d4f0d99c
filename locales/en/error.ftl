# The respondents' error pages (templates/respondent_error.html). A draft gets the same
# page as an unknown survey: whether a survey is being prepared is nobody's business.

not-found-title = Survey not found
not-found-body =
    There is no survey at this address. Check that the link you were given is complete;
    the survey may also have been deleted, or not be open yet.
not-found-nothing-sent = Nothing has been sent from this page.
error-title = Something went wrong
# $status: the HTTP status code, such as 500.
error-body = The server could not handle this request (error { $status }). Please try again later.

# The builder's refusals, beside the field they concern (the researcher's browser language).
# $min, $max: the bounds, written with the language's decimal separator; $got: as typed.
builder-epsilon-range = Privacy level ε must be between { $min } and { $max }; you entered { $got }.
# $count: how many characters the text has.
builder-text-length = The text of the question must have between { $min } and { $max } characters; it has { $count }.
