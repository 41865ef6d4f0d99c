# Spanish messages of locales/en/error.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

not-found-title = Encuesta no encontrada
not-found-body = No hay ninguna encuesta en esta dirección. Compruebe que el enlace que recibió esté completo; también puede que la encuesta se haya eliminado o que aún no esté abierta.
not-found-nothing-sent = No se ha enviado nada desde esta página.
error-title = Algo salió mal
error-body = El servidor no pudo procesar esta solicitud (error { $status }). Inténtelo de nuevo más tarde.

# The builder's refusals, beside the field they concern (the researcher's browser language).
builder-epsilon-range = El nivel de privacidad ε debe estar entre { $min } y { $max }; ha escrito { $got }.
builder-text-length = El texto de la pregunta debe tener entre { $min } y { $max } caracteres; tiene { $count }.
